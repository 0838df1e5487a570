import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { memberships, notifications, refreshTokens } from '../../server/src/db/schema.ts';
import { PLATFORM_WRITES } from '../../server/src/db/schema/cluster.ts';
import type { SignedInState } from '../../server/src/repositories/users.ts';
import { KeptSignIn, type KeptSignInOptions } from '../../server/src/services/kept-sign-in.ts';
import { onPostgres } from './helpers.ts';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { until } from './support/processes.ts';
import { ACME, addFinding, seededTenants, userIdOf } from './support/world.ts';

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';

/** A signed-in state of user `id` in T1 (and T2), at these versions. */
function stateOf(id: number, versions: { t1?: number; t2?: number; platform?: number } = {}): SignedInState {
  const tenants = new Map([[T1, versions.t1 ?? 1]]);
  if (versions.t2 !== undefined) tenants.set(T2, versions.t2);
  return {
    user: { id, username: `u${id}` } as SignedInState['user'],
    revoked: false,
    memberships: [...tenants.keys()].map((tenantId) => ({ tenantId, tenantName: tenantId, role: 'user' as const })),
    versions: { tenants, platform: versions.platform ?? 1 },
  };
}

/** A keeper over a fake database whose next answers the test sets; `reads` counts them. */
function keeper(opts: KeptSignInOptions = {}) {
  const db = { reads: 0, next: new Map<number, SignedInState>(), gate: undefined as Promise<void> | undefined };
  const kept = new KeptSignIn(
    async (userId) => {
      db.reads++;
      const state = db.next.get(userId);
      await db.gate;
      return state;
    },
    { mode: 'always', ...opts },
  );
  return { kept, db };
}

describe('KeptSignIn', () => {
  it('serves a state from memory only while listening, and never in mode off', async () => {
    const { kept, db } = keeper();
    db.next.set(1, stateOf(1, { t1: 5 }));
    await kept.state(1, 's');
    await kept.state(1, 's');
    expect(db.reads).toBe(2);

    kept.listening(true);
    await kept.state(1, 's');
    const again = await kept.state(1, 's');
    expect(db.reads).toBe(3);
    expect(again?.versions.tenants.get(T1)).toBe(5);
    expect(kept.counts).toEqual({ kept: 1, read: 3, shared: 0 });
    // Another session of the same user is its own state (its revocation is its own).
    await kept.state(1, 'other');
    expect(db.reads).toBe(4);

    const off = keeper({ mode: 'off' });
    off.db.next.set(1, stateOf(1));
    off.kept.listening(true);
    await off.kept.state(1, 's');
    await off.kept.state(1, 's');
    expect(off.db.reads).toBe(2);
  });

  it('lets requests of one session that miss together share one read, unless a change was heard since', async () => {
    const { kept, db } = keeper({ mode: 'busy', busy: () => false });
    db.next.set(1, stateOf(1, { t1: 3 }));
    kept.listening(true);
    let open!: () => void;
    db.gate = new Promise((resolve) => (open = resolve));
    const first = kept.state(1, 's');
    const second = kept.state(1, 's');
    // Another session, another user: reads of their own.
    const other = kept.state(1, 'other');
    const stranger = kept.state(2, 's');
    expect(db.reads).toBe(3);
    // A change of user 1 is heard (a logout, say): a request from now on reads anew.
    kept.heardSignedIn('1');
    const after = kept.state(1, 's');
    expect(db.reads).toBe(4);
    open();
    const [a, b] = await Promise.all([first, second, other, stranger, after]);
    expect(b).toBe(a);
    expect(kept.counts).toMatchObject({ read: 4, shared: 1 });

    // Mode off shares nothing.
    const off = keeper({ mode: 'off' });
    off.db.next.set(1, stateOf(1));
    off.kept.listening(true);
    await Promise.all([off.kept.state(1, 's'), off.kept.state(1, 's')]);
    expect(off.db.reads).toBe(2);
  });

  it('in mode busy, serves from memory only while the database has no free connection', async () => {
    let busy = false;
    const { kept, db } = keeper({ mode: 'busy', busy: () => busy });
    db.next.set(1, stateOf(1));
    kept.listening(true);
    await kept.state(1, 's');
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
    busy = true;
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
  });

  it('forgets a user’s states on their notice, everybody’s on *, and keeps others’', async () => {
    const { kept, db } = keeper();
    kept.listening(true);
    for (const id of [1, 2, 3]) db.next.set(id, stateOf(id));
    for (const id of [1, 2, 3]) await kept.state(id, 's');
    expect(db.reads).toBe(3);

    kept.heardSignedIn('2,3');
    await kept.state(1, 's');
    expect(db.reads).toBe(3);
    await kept.state(2, 's');
    await kept.state(3, 's');
    expect(db.reads).toBe(5);

    kept.heardSignedIn('*');
    await kept.state(1, 's');
    expect(db.reads).toBe(6);
  });

  it('uses but does not keep a state read while a change was heard', async () => {
    const { kept, db } = keeper();
    kept.listening(true);
    db.next.set(1, stateOf(1));
    let open!: () => void;
    db.gate = new Promise<void>((resolve) => (open = resolve));
    const reading = kept.state(1, 's');
    // The user's membership changes while the read is on its way: what it brings back may predate the change.
    kept.heardSignedIn('1');
    open();
    expect((await reading)?.user.id).toBe(1);
    db.gate = undefined;
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
  });

  it('raises known versions as writes are heard, and never serves a tenant whose version it did not read', async () => {
    const { kept, db } = keeper();
    kept.listening(true);
    db.next.set(1, stateOf(1, { t1: 10, platform: 3 }));
    await kept.state(1, 's');
    kept.heardWrites(`${T1}:12,${PLATFORM_WRITES}:4`);
    kept.heardWrites(`${T1}:11`);
    const raised = await kept.state(1, 's');
    expect(raised?.versions.tenants.get(T1)).toBe(12);
    expect(raised?.versions.platform).toBe(4);
    expect(db.reads).toBe(1);

    // User 2 is also a member of T2, never read since listening began: heard alone, 40 could miss a larger one.
    kept.heardWrites(`${T2}:40`);
    db.next.set(2, stateOf(2, { t1: 12, t2: 30 }));
    await kept.state(2, 's');
    // Read at 30 after 40 was heard: the larger one counts.
    expect((await kept.state(2, 's'))?.versions.tenants.get(T2)).toBe(40);
    expect(db.reads).toBe(2);

    kept.heardWrites('*');
    await kept.state(2, 's');
    expect(db.reads).toBe(3);
  });

  it('forgets everything and serves nothing from memory while not listening', async () => {
    const { kept, db } = keeper();
    kept.listening(true);
    db.next.set(1, stateOf(1));
    await kept.state(1, 's');
    kept.listening(false);
    await kept.state(1, 's');
    await kept.state(1, 's');
    expect(db.reads).toBe(3);
    kept.listening(true);
    await kept.state(1, 's');
    await kept.state(1, 's');
    expect(db.reads).toBe(4);
  });

  it('reads a state again once it is older than its age limit', async () => {
    let now = 0;
    const { kept, db } = keeper({ maxAgeMs: 1000, now: () => now });
    kept.listening(true);
    db.next.set(1, stateOf(1));
    await kept.state(1, 's');
    now = 999;
    await kept.state(1, 's');
    expect(db.reads).toBe(1);
    now = 1000;
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
  });

  it('settles once its marker comes back, and forgets everything when it does not', async () => {
    const { kept, db } = keeper();
    kept.listening(true);
    db.next.set(1, stateOf(1));
    await kept.state(1, 's');
    // The marker comes back after the notices of what committed before it.
    await kept.settle(async (marker) => {
      setTimeout(() => {
        kept.heardWrites(`${T1}:7`);
        kept.heardSignedIn(marker);
      }, 5);
    });
    expect((await kept.state(1, 's'))?.versions.tenants.get(T1)).toBe(7);
    expect(db.reads).toBe(1);
    // Another process's marker changes nothing here.
    kept.heardSignedIn('~someone-else');
    await kept.state(1, 's');
    expect(db.reads).toBe(1);

    await kept.settle(async () => {}, 20);
    await kept.state(1, 's');
    expect(db.reads).toBe(2);
    await kept.settle(() => Promise.reject(new Error('database gone')));
    await kept.state(1, 's');
    expect(db.reads).toBe(3);
  });
});

/**
 * Issue 19: under a crowd each process answers kept answers without asking the database who is signed in (mode
 * 'always' here, 'busy' in production), and still shows every change: its own writes at once, other connections'
 * as soon as they are heard.
 */
describe(`signed-in states kept in memory (${backend})`, () => {
  const t = useTestApp({ runJobs: false, keptSignIn: 'always' });
  const api = apiFor(t);
  let acme: string;
  beforeAll(async () => {
    ({ acme } = await seededTenants(t.database.db));
  });
  const SUMMARY = '/api/vulnerabilities/summary/';

  it('answers repeated reads without reading the signed-in state again', async () => {
    const analyste = await api.as('analyste');
    const first = await analyste.get(SUMMARY, { tenant: acme });
    expect(first.statusCode).toBe(200);
    const before = { ...t.keptSignIn.counts };
    for (let i = 0; i < 5; i++) expect((await analyste.get(SUMMARY, { tenant: acme })).body).toBe(first.body);
    expect(t.keptSignIn.counts.kept - before.kept).toBe(5);
    expect(t.keptSignIn.counts.read).toBe(before.read);
  });

  it('refuses a signed-out session’s token on the very next request', async () => {
    const session = await api.as('lecteur');
    expect((await session.get('/api/current-user/')).statusCode).toBe(200);
    expect((await session.get('/api/current-user/')).statusCode).toBe(200);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/token/logout/',
      payload: { refresh: session.refresh },
    });
    expect(out.statusCode).toBe(200);
    expect((await session.get('/api/current-user/')).statusCode).toBe(401);
  });

  it('shows the user’s own write on their next read', async () => {
    const analyste = await api.as('analyste');
    const summary = async () => (await analyste.get(SUMMARY, { tenant: acme })).json<{ resolved_count: number }>();
    const before = await summary();
    await summary();
    const [open] = (
      await analyste.get('/api/vulnerabilities/vulnerabilities/?severity=critical&is_resolved=false', { tenant: acme })
    ).json<{ results: { id: number }[] }>().results;
    const resolved = await analyste.post(
      `/api/vulnerabilities/vulnerabilities/${open!.id}/mark_resolved/`,
      {},
      { tenant: acme },
    );
    expect(resolved.statusCode).toBe(200);
    expect((await summary()).resolved_count).toBe(before.resolved_count + 1);
  });

  it('keeps a user’s notification list until one of their notifications changes', async () => {
    const LIST = '/api/notifications/notifications/';
    const analyste = await api.as('analyste');
    const manager = await api.as('manager');
    const userId = await userIdOf(t.database.db, 'analyste');
    type Inbox = { results: { id: number; title: string; read: boolean }[]; count: number; unread: number };
    const inbox = async () => (await analyste.get(LIST)).json<Inbox>();
    const unread = async () => (await analyste.get(`${LIST}unread_count/`)).json<{ count: number }>().count;

    const sent = await manager.post(LIST, { title: 'Revue des correctifs à 14 h', user: userId }, { tenant: acme });
    expect(sent.statusCode, sent.body).toBe(201);
    // The sender's write answered once heard here: the recipient's next read shows it.
    const first = await inbox();
    expect(first.results[0]?.title).toBe('Revue des correctifs à 14 h');
    expect(await unread()).toBe(first.unread);

    // Changed with the triggers off: a kept list does not see it, which shows it was kept.
    const newest = first.results[0]!;
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update notifications set title = 'Titre changé en douce' where id = ${newest.id}`);
    });
    expect((await inbox()).results[0]?.title).toBe('Revue des correctifs à 14 h');

    // The user's own change shows on the next read.
    expect((await analyste.post(`${LIST}${newest.id}/mark_as_read/`, {})).statusCode).toBe(200);
    const marked = await inbox();
    expect(marked.results[0]).toMatchObject({ title: 'Titre changé en douce', read: true });
    expect(marked.unread).toBe(first.unread - 1);
    expect(await unread()).toBe(first.unread - 1);

    // Written elsewhere (another process, a task): shown as soon as it is heard.
    await t.database.db.insert(notifications).values({ tenantId: acme, userId, title: 'Écrite par une tâche' });
    await until(
      'the new notification is listed',
      async () => ((await inbox()).results[0]?.title === 'Écrite par une tâche' ? true : undefined),
      2000,
    );
    expect(await unread()).toBe(first.unread);
  });

  it('hears another connection’s writes: a finding, then a membership taken away', async () => {
    const analyste = await api.as('analyste');
    const critical = async () =>
      (await analyste.get(SUMMARY, { tenant: acme })).json().severity_distribution.critical as number;
    const before = await critical();
    const reads = t.keptSignIn.counts.read;
    // As another process or a task would: straight to the database.
    await addFinding(t.database.db, { tenantId: acme, title: 'Écrit ailleurs', severity: 'critical' });
    await until('the finding is counted', async () => ((await critical()) === before + 1 ? true : undefined), 2000);
    // The version came with the notice: the signed-in state was not read again for it.
    expect(t.keptSignIn.counts.read).toBe(reads);

    const userId = await userIdOf(t.database.db, 'analyste');
    await t.database.db.delete(memberships).where(and(eq(memberships.userId, userId), eq(memberships.tenantId, acme)));
    await until(
      'the membership is gone',
      async () => ((await analyste.get(SUMMARY, { tenant: acme })).statusCode === 403 ? true : undefined),
      2000,
    );
  });

  it.runIf(onPostgres)('serves nothing from memory while its listening connection is lost', async () => {
    const manager = await api.as('manager');
    const read = () => manager.get('/api/current-user/', { tenant: ACME });
    await read();
    const kept = t.keptSignIn.counts.kept;
    await read();
    expect(t.keptSignIn.counts.kept).toBe(kept + 1);

    // The listening connection dies (a restarted pooler, a network cut): its notices would be missed from now on.
    await t.database.db.execute(
      sql`select pg_terminate_backend(pid) from pg_stat_activity
           where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
    );
    await until('the loss is noticed', async () => {
      const before = t.keptSignIn.counts.kept;
      await read();
      return t.keptSignIn.counts.kept === before ? true : undefined;
    });
    // Revoked behind its back: refused at once, since nothing is served from memory meanwhile.
    const userId = await userIdOf(t.database.db, 'manager');
    await t.database.db
      .update(refreshTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
    expect((await read()).statusCode).toBe(401);

    // Listening again (after a second): kept states are served again.
    const other = await api.as('admin');
    await until(
      'listening again',
      async () => {
        const before = t.keptSignIn.counts.kept;
        await other.get('/api/current-user/');
        await other.get('/api/current-user/');
        return t.keptSignIn.counts.kept > before ? true : undefined;
      },
      10_000,
    );
  });
});
