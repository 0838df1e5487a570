import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { STORAGE_MESSAGES } from '../../server/src/domain/storage-errors.ts';
import {
  DEFAULT_TURN_TARGET_MS,
  PACE_AFTER_CONNECTION_MS,
  pacedServerFactory,
  RequestIntake,
  waitedTooLong,
} from '../../server/src/lib/request-intake.ts';
import requestGate, { RequestGate } from '../../server/src/plugins/app/request-gate.ts';

/**
 * Issue 19, a crowd on one process: libuv accepts one waiting connection per turn of the event loop, so the intake
 * keeps turns short by starting at most `perTurn` new requests a turn, adapted to the processor time turns take.
 */
interface Fake {
  req: IncomingMessage;
  res: ServerResponse;
  id: number;
}

const fake = (id: number, url = `/api/vulnerabilities/?n=${id}`): Fake => ({
  id,
  req: { url, destroyed: false } as IncomingMessage,
  res: { destroyed: false } as ServerResponse,
});

/** An intake on a fake processor clock whose turns run when the test says; each start costs `costMs`. */
function harness(costMs: number) {
  let cpu = 0;
  let wall = 0;
  const turns: (() => void)[] = [];
  const started: number[] = [];
  const perTurnStarts: number[] = [];
  const ids = new Map<IncomingMessage, number>();
  const intake = new RequestIntake(
    (req) => {
      started.push(ids.get(req)!);
      cpu += costMs;
    },
    { cpuNow: () => cpu, now: () => wall, nextTurn: (run) => turns.push(run) },
  );
  return {
    intake,
    /** Moves the wall clock (the processor clock moves with the work). */
    wait(ms: number) {
      wall += ms;
    },
    started,
    perTurnStarts,
    admit(f: Fake) {
      ids.set(f.req, f.id);
      intake.admit(f.req, f.res);
    },
    /** One turn of the loop: what was scheduled for it runs. */
    turn() {
      const before = started.length;
      const run = turns.splice(0);
      for (const r of run) r();
      perTurnStarts.push(started.length - before);
      return run.length;
    },
    pending: () => turns.length,
  };
}

describe('RequestIntake', () => {
  it('without a crowd starts every request in the turn it arrived in, in arrival order', () => {
    const h = harness(0.05);
    for (let i = 0; i < 20; i++) h.admit(fake(i));
    expect(h.started).toEqual([]);
    expect(h.turn()).toBe(1);
    expect(h.started).toEqual([...Array(20).keys()]);
    expect(h.pending()).toBe(0);
    expect(h.intake.waiting).toBe(0);
  });

  it('while connections arrive, starts a bounded number per turn and lets the loop turn in between, in order', () => {
    const h = harness(1); // 1 ms of processor time per start: 3 a turn would meet the 3 ms target
    h.intake.connectionArrived();
    for (let i = 0; i < 500; i++) h.admit(fake(i));
    h.turn();
    expect(h.started).toHaveLength(64); // the first crowd turn, unmeasured yet
    while (h.pending() > 0) h.turn();
    expect(h.started).toEqual([...Array(500).keys()]);
    // After the first measured turn, no turn starts more than the floor of 4 (4 ms) and every one starts some.
    expect(Math.max(...h.perTurnStarts.slice(2))).toBeLessThanOrEqual(4);
    expect(Math.min(...h.perTurnStarts.slice(0, -1))).toBeGreaterThanOrEqual(4);
  });

  it('settles near the target: cheap requests many per turn, each turn close to its processor budget', () => {
    const h = harness(0.1); // 30 starts make the 3 ms target
    h.intake.connectionArrived();
    for (let i = 0; i < 5_000; i++) h.admit(fake(i));
    while (h.pending() > 0) h.turn();
    expect(h.started).toHaveLength(5_000);
    const settled = h.perTurnStarts.slice(10, -1);
    for (const n of settled) {
      // Over the target by at most the growth step (a tenth) and one request.
      expect(n * 0.1).toBeLessThanOrEqual(DEFAULT_TURN_TARGET_MS * 1.1 + 0.1 + 1e-9);
      expect(n * 0.1).toBeGreaterThanOrEqual(DEFAULT_TURN_TARGET_MS * 0.5);
    }
  });

  it('does not pace when no connection arrived lately: open connections alone start all they send', () => {
    const h = harness(1);
    for (let i = 0; i < 300; i++) h.admit(fake(i));
    h.turn();
    expect(h.started).toHaveLength(300);

    h.intake.connectionArrived();
    for (let i = 300; i < 600; i++) h.admit(fake(i));
    h.turn();
    expect(h.started).toHaveLength(300 + 64);
    h.wait(PACE_AFTER_CONNECTION_MS + 1);
    h.turn(); // no connection for a while: the rest start at once
    expect(h.started).toEqual([...Array(600).keys()]);
    expect(h.pending()).toBe(0);
  });

  it('skips requests whose client left while they waited, and answers health probes at once', () => {
    const h = harness(0);
    const gone = fake(1);
    h.admit(fake(0));
    h.admit(gone);
    h.admit(fake(2));
    (gone.req as { destroyed: boolean }).destroyed = true;
    const probe = fake(3, '/api/health/');
    h.admit(probe);
    expect(h.started).toEqual([3]);
    h.turn();
    expect(h.started).toEqual([3, 0, 2]);
  });
});

describe('a request that waited too long for its turn', () => {
  it('is marked when its turn comes, and only then', () => {
    let wall = 0;
    const seen: boolean[] = [];
    const turns: (() => void)[] = [];
    const intake = new RequestIntake((req) => seen.push(waitedTooLong(req)), {
      maxWaitMs: 2000,
      now: () => wall,
      cpuNow: () => 0,
      nextTurn: (run) => turns.push(run),
    });
    const early = fake(0);
    const late = fake(1);
    intake.admit(early.req, early.res);
    wall = 1500;
    intake.admit(late.req, late.res);
    wall = 2500; // the first waited 2.5 s, the second 1 s
    turns.splice(0).forEach((run) => run());
    expect(seen).toEqual([true, false]);
  });

  it('is answered 503 « Serveur surchargé » with Retry-After by the request gate, health probes aside', async () => {
    let wall = 0;
    const gate = new RequestGate(100);
    // Every request has waited ten seconds by the time its turn comes.
    const app = Fastify({ serverFactory: pacedServerFactory({ now: () => (wall += 10_000) }) });
    await app.register(requestGate, { gate });
    app.get('/api/n', async () => ({ ok: true }));
    app.get('/api/health/', async () => ({ status: 'ok' }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = app.server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/n`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ detail: STORAGE_MESSAGES.busy, code: 'server_busy' });
      expect(gate.refused).toBe(1);
      expect(gate.inFlight).toBe(0);
      expect((await fetch(`http://127.0.0.1:${port}/api/health/`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('pacedServerFactory', () => {
  it('serves a Fastify app with the timeouts Fastify would set, every request of a burst answered in order', async () => {
    const app = Fastify({ serverFactory: pacedServerFactory(), keepAliveTimeout: 12_345 });
    let n = 0;
    app.get('/api/n', async () => ({ n: n++ }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect(app.server.keepAliveTimeout).toBe(12_345);
      const { port } = app.server.address() as AddressInfo;
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => fetch(`http://127.0.0.1:${port}/api/n`).then((r) => r.json())),
      );
      expect(answers.map((a: { n: number }) => a.n).sort((a, b) => a - b)).toEqual([...Array(200).keys()]);
    } finally {
      await app.close();
    }
  });
});
