import { afterEach, describe, expect, it } from 'vitest';
import {
  backendList,
  checkAvailability,
  HealthMonitor,
  localDataMode,
  activeBackend,
  setMockMode,
  mockApiMode,
  restoreMockMode,
} from '../../src/app/modes.ts';
import { kvGet } from '../../src/lib/storage.ts';

afterEach(() => {
  localDataMode.value = false;
  activeBackend.value = '';
});

describe('backend list (§9)', () => {
  it('puts the same origin first and keeps at most six entries without duplicates', () => {
    expect(backendList(undefined)).toEqual(['']);
    expect(backendList(' https://a.example/ , https://b.example,https://a.example')).toEqual([
      '',
      'https://a.example',
      'https://b.example',
    ]);
    expect(backendList('1,2,3,4,5,6,7,8')).toHaveLength(6);
  });
});

describe('availability check (§1)', () => {
  it('uses the first reachable backend and leaves local-data mode off', async () => {
    const tried: string[] = [];
    const ok = await checkAvailability(['', 'https://b', 'https://c'], async (base) => {
      tried.push(base);
      return base === 'https://b';
    });
    expect(ok).toBe(true);
    expect(tried).toEqual(['', 'https://b']);
    expect(activeBackend.value).toBe('https://b');
    expect(localDataMode.value).toBe(false);
  });

  it('switches local-data mode on when no backend answers', async () => {
    expect(await checkAvailability(['', 'https://b'], async () => false)).toBe(false);
    expect(localDataMode.value).toBe(true);
  });
});

describe('health check (§9)', () => {
  it('checks at most once per 60 s and reuses the last answer in between', async () => {
    let now = 0;
    let calls = 0;
    const monitor = new HealthMonitor(
      async () => {
        calls++;
        return true;
      },
      () => now,
    );
    expect(await monitor.healthy()).toBe(true);
    now = 59_999;
    expect(await monitor.healthy()).toBe(true);
    expect(calls).toBe(1);
    now = 60_000;
    await monitor.healthy();
    expect(calls).toBe(2);
  });

  it('after three consecutive failures is bypassed and reports healthy', async () => {
    let now = 0;
    let calls = 0;
    const monitor = new HealthMonitor(
      async () => {
        calls++;
        return false;
      },
      () => now,
    );
    const answers: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await monitor.healthy());
      now += 60_000;
    }
    expect(answers).toEqual([false, false, false, true, true]);
    expect(calls).toBe(3);
  });

  it('a success resets the failure count', async () => {
    let now = 0;
    const results = [false, false, true, false, false];
    const monitor = new HealthMonitor(
      async () => results.shift()!,
      () => now,
    );
    for (let i = 0; i < 5; i++) {
      await monitor.healthy();
      now += 60_000;
    }
    expect(monitor.consecutiveFailures).toBe(2);
  });
});

describe('mock API mode (§1)', () => {
  it('stores the switch where the service worker reads it and returns the alert message', async () => {
    expect(await setMockMode(true)).toBe('Mode API simulée activé : les données affichées sont des données d’exemple.');
    expect(await kvGet('mock-api-mode')).toBe(true);
    mockApiMode.value = false;
    await restoreMockMode();
    expect(mockApiMode.value).toBe(true);
    expect(await setMockMode(false)).toBe('Mode API simulée désactivé : retour aux données du serveur.');
    expect(await kvGet('mock-api-mode')).toBe(false);
  });
});
