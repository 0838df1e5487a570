import fp from 'fastify-plugin';
import { STORAGE_MESSAGES } from '../../domain/storage-errors.ts';
import { waitedTooLong } from '../../lib/request-intake.ts';

/** Seconds before asking again: a crowd's peak passes in a moment. */
export const GATE_RETRY_AFTER_S = 1;

/** Requests in progress in one process, and when the next one is turned away. */
export class RequestGate {
  #inFlight = 0;
  #refused = 0;

  constructor(readonly max: number) {}

  /** A release function, or undefined when `max` requests are already in progress. */
  tryEnter(): (() => void) | undefined {
    if (this.#inFlight >= this.max) {
      this.#refused++;
      return undefined;
    }
    this.#inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
    };
  }

  /** Counts one more request turned away for another reason (waited too long for its turn): undefined. */
  refuse(): undefined {
    this.#refused++;
    return undefined;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests turned away since the process started. */
  get refused(): number {
    return this.#refused;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** API requests in progress in this process, and those turned away (plugins/app/request-gate.ts). */
    requestGate: RequestGate;
  }
}

/** Answered by the load balancer's probes and the operators whatever the crowd: never gated. */
const UNGATED = /^\/api\/health(\/|$|\?)/;

/**
 * Graceful shedding before any work: past `gate.max` API requests in progress in this process, one more is answered
 * 503 « Serveur surchargé » with Retry-After at once, before its token is read or a route runs. Under a crowd far
 * beyond what the process serves (a thousand wall screens at once), the requests it took finish in time and the rest
 * are told to come back, rather than every request waiting until clients give up. Sized so that a few hundred
 * clients never meet it (config.ts DEFAULT_MAX_IN_FLIGHT).
 */
export default fp<{ gate: RequestGate }>(
  async (app, { gate }) => {
    app.decorate('requestGate', gate);
    app.addHook('onRequest', (request, reply, done) => {
      if (!request.url.startsWith('/api/') || UNGATED.test(request.url)) return done();
      // A request that waited too long for its turn (lib/request-intake.ts) is turned away as if the gate were full.
      const release = waitedTooLong(request.raw) ? gate.refuse() : gate.tryEnter();
      if (!release) {
        void reply
          .code(503)
          .header('Retry-After', String(GATE_RETRY_AFTER_S))
          .header('Cache-Control', 'no-store')
          .send({ detail: STORAGE_MESSAGES.busy, code: 'server_busy' });
        return;
      }
      // 'close' comes once the answer is sent or the client went away, streamed bodies included.
      reply.raw.once('close', release);
      reply.raw.once('finish', release);
      done();
    });
  },
  { name: 'request-gate' },
);
