import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The processor time one turn of the event loop should take under a crowd (issue 19). libuv accepts one waiting
 * connection a turn, so 3 ms turns take in a thousand new connections in about three seconds, while the loop's own
 * cost per turn (polling, timers) stays around a hundredth of it.
 */
export const DEFAULT_TURN_TARGET_MS = 3;

/** Requests started in one turn: never fewer (the crowd is served), never more (a turn stays bounded). */
const MIN_PER_TURN = 4;
const MAX_PER_TURN = 1024;
/** Where a crowd's first turn starts, before any turn was measured. */
const FIRST_PER_TURN = 64;
/**
 * How long after the last connection accepted turns stay paced: while connections keep arriving more may wait in the
 * kernel's queue (one is accepted a turn); once none came for this long, requests start as they come, at full speed.
 */
export const PACE_AFTER_CONNECTION_MS = 500;

/**
 * How long a request may wait for its turn: past it, it is answered « Serveur surchargé » (request gate) when its
 * turn comes rather than served, like the requests the gate turns away. Well under the ten seconds clients wait.
 */
export const DEFAULT_MAX_WAIT_MS = 2000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const overdue = new WeakSet<IncomingMessage>();

/** Whether the request waited longer than its intake allows: the request gate then answers 503 at once. */
export const waitedTooLong = (req: IncomingMessage): boolean => overdue.has(req);

/** User and system processor time of the process, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export interface IntakeOptions {
  turnTargetMs?: number;
  maxWaitMs?: number;
  /** The process's processor time and the wall clock in ms, and the next turn of the loop; the tests give theirs. */
  cpuNow?: () => number;
  now?: () => number;
  nextTurn?: (run: () => void) => void;
}

/** Answered at once whatever the crowd: the load balancer's probes (as for the request gate). */
const UNPACED = /^\/api\/health(\/|$|\?)/;

/**
 * Paces the start of new requests so that a crowd cannot stop the process from accepting connections.
 *
 * libuv (since 1.45, libuv/libuv#3696) accepts one waiting connection each time the loop polls. Node starts every
 * request that arrived during a poll before polling again, and each started request brings its continuations
 * (queries answered, pages written) into the turns that follow: under a thousand busy keep-alive connections a turn
 * lasted 50–150 ms, connections still in the kernel's queue were accepted about ten a second, and hundreds of clients
 * waited ten seconds for a first answer (bench, 1,000 connections on one process) although the request gate had room.
 *
 * The intake queues requests in arrival order and starts them at the end of the turn, at most `perTurn` of them; the
 * rest wait for the next turn. `perTurn` follows the processor time of the turns (from one start to the next while
 * requests wait; processor rather than wall-clock time, so that a process the system keeps waiting — the database on
 * the same machine — is not slowed down further): shrunk in proportion when a turn ran over the target, grown by a
 * tenth when it stayed under. Turns are paced only while connections arrive (`connectionArrived`, until
 * PACE_AFTER_CONNECTION_MS after the last): a steady crowd of open connections has nobody left to accept, and short
 * turns would only cost it throughput (a quarter to a third at 200 connections). Without a crowd nothing waits and
 * every request starts in the turn it arrived in.
 * A request that waited more than `maxWaitMs` is still started in its turn, marked so that the request gate answers
 * it 503 with Retry-After before any work: waiting is bounded, as for the database pool.
 */
export class RequestIntake {
  readonly #handler: Handler;
  readonly #targetMs: number;
  readonly #maxWaitMs: number;
  readonly #cpuNow: () => number;
  readonly #now: () => number;
  readonly #nextTurn: (run: () => void) => void;
  /** Each waiting request, its answer, and when it arrived (wall clock). */
  #queue: [IncomingMessage, ServerResponse, number][] = [];
  #head = 0;
  #scheduled = false;
  #perTurn = FIRST_PER_TURN;
  /** Processor time when the last paced drain began, while requests were left waiting (else undefined). */
  #lastStart: number | undefined;
  /** Wall-clock time until which turns are paced. */
  #pacingUntil = -Infinity;

  constructor(handler: Handler, options: IntakeOptions = {}) {
    this.#handler = handler;
    this.#targetMs = options.turnTargetMs ?? DEFAULT_TURN_TARGET_MS;
    this.#maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.#cpuNow = options.cpuNow ?? cpuMs;
    this.#now = options.now ?? (() => performance.now());
    this.#nextTurn = options.nextTurn ?? ((run) => setImmediate(run));
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /** How many requests a turn starts at most, as the turns' length has set it. */
  get perTurn(): number {
    return this.#perTurn;
  }

  /** A connection was accepted: others may be waiting to be, so turns are kept short for a while. */
  readonly connectionArrived = (): void => {
    this.#pacingUntil = this.#now() + PACE_AFTER_CONNECTION_MS;
  };

  readonly admit = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url !== undefined && UNPACED.test(req.url)) return this.#handler(req, res);
    this.#queue.push([req, res, this.#now()]);
    this.#schedule();
  };

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#nextTurn(this.#drain);
  }

  #adapt(start: number): void {
    if (this.#lastStart === undefined) return;
    const turnMs = start - this.#lastStart;
    this.#perTurn =
      turnMs > this.#targetMs
        ? Math.max(MIN_PER_TURN, Math.floor((this.#perTurn * this.#targetMs) / turnMs))
        : Math.min(MAX_PER_TURN, Math.max(this.#perTurn + 1, Math.floor(this.#perTurn * 1.1)));
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    const now = this.#now();
    const pacing = now < this.#pacingUntil;
    const start = this.#cpuNow();
    if (pacing) this.#adapt(start);
    const limit = pacing ? this.#perTurn : Infinity;
    const tooOld = now - this.#maxWaitMs;
    let started = 0;
    while (this.#head < this.#queue.length && started < limit) {
      const [req, res, arrived] = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as never;
      // A client that gave up while it waited costs nothing more.
      if (req.destroyed || res.destroyed) continue;
      if (arrived < tooOld) overdue.add(req);
      this.#handler(req, res);
      started++;
    }
    if (this.#head < this.#queue.length) {
      this.#lastStart = pacing ? start : undefined;
      return this.#schedule();
    }
    this.#lastStart = undefined;
    this.#queue = [];
    this.#head = 0;
  };
}

/** The HTTP timeouts Fastify would set on a server it made itself (its options, defaults applied). */
interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number | null;
}

/** Fastify's `serverFactory`: the HTTP/1.1 server Fastify would make, its requests going through a RequestIntake. */
export function pacedServerFactory(options: IntakeOptions = {}) {
  return (handler: Handler, opts: ServerTimeouts): Server => {
    const intake = new RequestIntake(handler, options);
    const server = createServer(intake.admit);
    server.on('connection', intake.connectionArrived);
    if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
    if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
    if (opts.connectionTimeout !== undefined) server.setTimeout(opts.connectionTimeout);
    if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
    return server;
  };
}
