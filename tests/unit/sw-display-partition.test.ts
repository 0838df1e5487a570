import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  displayPartitionName,
  foreignDisplayPartitions,
  foreignPartitions,
  isAuthEndpoint,
  partitionName,
} from '../../sw/policy.ts';
import { handleApiGet } from '../../sw/api-layer.ts';
import { kvDelete, kvSet } from '../../src/lib/storage.ts';
import { DISPLAY_CREDENTIAL_KEY } from '../../src/lib/display-device.ts';
import { SOURCE_HEADER, STORED_AT_HEADER } from '../../contract/sw-messages.ts';

const TOKEN = 'vgd_' + 'a'.repeat(43);
const SUMMARY = 'http://localhost/api/dashboard/summary/';

describe('cache partitions of a paired wall screen (policy)', () => {
  it('are per display and tenant, and can never be named like a person’s', () => {
    expect(displayPartitionName(3, 't1')).toBe('vigie-api:display~3:t1');
    expect(displayPartitionName('3', undefined)).toBe('vigie-api:display~3:none');
    expect(displayPartitionName(undefined, 't1')).toBeNull();
    // A user id spelled like a display gets the cleaned name: never the display's partition.
    expect(partitionName('display~3', 't1')).toBe('vigie-api:display_3:t1');
    expect(partitionName('display~3', 't1')).not.toBe(displayPartitionName(3, 't1'));
  });

  it('a person signing in on the device drops every display partition; a device forgets the others', () => {
    const names = ['vigie-api:7:t1', 'vigie-api:display~3:t1', 'vigie-api:display~3:t2', 'vigie-api:display~30:t1'];
    expect(foreignPartitions(names, 7)).toEqual(names.slice(1));
    expect(foreignDisplayPartitions(names, 3)).toEqual(['vigie-api:display~30:t1']);
    expect(foreignDisplayPartitions(names)).toEqual(names.slice(1));
  });

  it('never keeps the pairing poll (it hands over the credential) nor the screen’s own record (a renewed one)', () => {
    expect(isAuthEndpoint('/api/displays/pairings/')).toBe(true);
    expect(isAuthEndpoint('/api/displays/pairings/p1/')).toBe(true);
    expect(isAuthEndpoint('/api/displays/me/')).toBe(true);
    // The « Écrans » list is a plain read.
    expect(isAuthEndpoint('/api/displays/')).toBe(false);
  });
});

/** Cache Storage in memory. */
const partitions = new Map<string, Map<string, { body: ArrayBuffer; status: number; headers: [string, string][] }>>();

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function event(url: string, headers: Record<string, string>) {
  const waits: Promise<unknown>[] = [];
  return {
    event: {
      request: new Request(url, { headers }),
      waitUntil: (p: Promise<unknown>) => waits.push(p),
    } as unknown as FetchEvent,
    waits,
  };
}

const device = (token = TOKEN, tenant = 't1') => ({ Authorization: `Display ${token}`, 'X-Tenant-ID': tenant });
const person = { Authorization: 'Bearer person', 'X-Tenant-ID': 't1' };

async function get(url: string, headers: Record<string, string>) {
  const { event: e, waits } = event(url, headers);
  const answer = await handleApiGet(e);
  await Promise.all(waits);
  return answer;
}

beforeEach(async () => {
  partitions.clear();
  vi.stubGlobal('caches', {
    open: (name: string) => {
      let p = partitions.get(name);
      if (!p) partitions.set(name, (p = new Map()));
      const store = p;
      return Promise.resolve({
        match: (r: Request | string) => {
          const k = store.get(typeof r === 'string' ? r : r.url);
          return Promise.resolve(k && new Response(k.body.slice(0), { status: k.status, headers: k.headers }));
        },
        put: async (r: Request | string, response: Response) => {
          store.set(typeof r === 'string' ? r : r.url, {
            body: await response.arrayBuffer(),
            status: response.status,
            headers: [...response.headers.entries()],
          });
        },
      });
    },
    keys: () => Promise.resolve([...partitions.keys()]),
    delete: (name: string) => Promise.resolve(partitions.delete(name)),
  });
  // A person is signed in on this browser too: their partition must stay theirs.
  await kvSet('session', { profile: { id: 7, current_tenant: { id: 't1' } } });
  await kvSet(DISPLAY_CREDENTIAL_KEY, { token: TOKEN, display: { id: 3 } });
});

afterEach(async () => {
  vi.unstubAllGlobals();
  await kvDelete('session');
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
});

describe('handleApiGet for a paired wall screen', () => {
  it('keeps its answers in its own partition, and serves them back offline marked as kept', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json({ vulnerabilities: { open: 3 } })));
    const live = await get(SUMMARY, device());
    expect(live.headers.get(SOURCE_HEADER)).toBe('network');
    expect([...partitions.keys()].filter((n) => partitions.get(n)!.size > 0)).toEqual(['vigie-api:display~3:t1']);

    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * 60_000);
    try {
      const kept = await get(SUMMARY, device());
      expect(kept.headers.get(SOURCE_HEADER)).toBe('cache');
      expect(Number(kept.headers.get(STORED_AT_HEADER))).toBeGreaterThan(0);
      expect(await kept.json()).toEqual({ vulnerabilities: { open: 3 } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('never serves a device’s answer to the person signed in, nor the person’s to the device', async () => {
    vi.stubGlobal('fetch', (r: Request) =>
      Promise.resolve(json({ who: r.headers.get('Authorization')!.startsWith('Display') ? 'device' : 'person' })),
    );
    // The person first: the worker's first sight of them drops every other partition (display ones included).
    await get(SUMMARY, person);
    await get(SUMMARY, device());
    expect(partitions.get('vigie-api:display~3:t1')!.size).toBe(1);
    expect(partitions.get('vigie-api:7:t1')!.size).toBe(1);

    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    expect(await (await get(SUMMARY, person)).json()).toEqual({ who: 'person' });
    expect(await (await get(SUMMARY, device())).json()).toEqual({ who: 'device' });
  });

  it('keeps nothing for a credential this device does not hold, and serves it nothing kept', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json({ vulnerabilities: { open: 3 } })));
    await get(SUMMARY, device());
    await get(SUMMARY, device('vgd_other'));
    expect([...partitions.values()].reduce((n, p) => n + p.size, 0)).toBe(1);
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    expect((await get(SUMMARY, device('vgd_other'))).type).toBe('error');
  });

  it('a new pairing drops what the previous display kept', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json({ vulnerabilities: { open: 3 } })));
    await get(SUMMARY, device());
    await kvSet(DISPLAY_CREDENTIAL_KEY, { token: 'vgd_new', display: { id: 4 } });
    await get(SUMMARY, device('vgd_new'));
    expect([...partitions.keys()]).toEqual(['vigie-api:display~4:t1']);
  });

  it('marks a sample as a sample for a device too (an area the server does not serve)', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json({ detail: 'Not found.' }, 404)));
    const answer = await get('http://localhost/api/vulnerabilities/summary/?days=30', device());
    expect(answer.headers.get(SOURCE_HEADER)).toBe('sample');
  });

  it('sends the pairing poll and /me/ straight to the network, kept nowhere', async () => {
    const fetchMock = vi.fn(() => Promise.resolve(json({ status: 'approved', token: TOKEN })));
    vi.stubGlobal('fetch', fetchMock);
    await get('http://localhost/api/displays/pairings/p1/', { 'X-Display-Pairing': 's' });
    await get('http://localhost/api/displays/me/', device());
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect([...partitions.values()].reduce((n, p) => n + p.size, 0)).toBe(0);
  });
});
