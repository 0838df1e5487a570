import fp from 'fastify-plugin';
import { createHash, randomUUID } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { idempotencyKeys } from '../../db/schema.ts';
import { ApiError } from '../../domain/errors.ts';
import { ACCESS_COOKIE } from './authentication.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: this route ignores Idempotency-Key (its answers or bodies hold credentials). */
    idempotency?: boolean;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** How long an answer is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** An in_progress row older than this belongs to an attempt that died (crash): it may be claimed again. */
export const IDEMPOTENCY_LEASE_MS = 5 * 60 * 1000;
/** Answers at least this large are not kept; a replay then answers the status with a JSON null. */
export const MAX_STORED_BODY = 64 * 1024;
const PURGE_EVERY_MS = 60 * 1000;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_RE = /^[A-Za-z0-9_-]{8,128}$/;
const JSON_TYPE_RE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Credential endpoints: their bodies carry passwords and their answers carry tokens or TOTP seeds, none
 * of which may sit in a table. They behave as if the header were absent (a route may also opt out
 * with `config: { idempotency: false }`). Nobody signs in or changes a password offline anyway.
 */
const EXCLUDED_PREFIXES = [
  '/api/token/',
  '/api/auth/logout/',
  '/api/logout/',
  '/api/register/',
  '/api/accounts/password/',
  '/api/accounts/2fa/',
];

const reused = () =>
  new ApiError(422, 'idempotency_key_reused', 'Cette clé Idempotency-Key a déjà servi pour une autre requête.');
const inProgress = () =>
  new ApiError(409, 'idempotency_in_progress', 'Une requête avec cette clé Idempotency-Key est déjà en cours.');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Who owns a key: the authenticated user (so a replay sent after a token refresh is still recognised),
 * else the credential as presented, else anonymous.
 */
function credentialOf(request: FastifyRequest): string {
  if (request.auth) return `user:${request.auth.user.id}`;
  const header = request.headers.authorization;
  if (typeof header === 'string' && header !== '') return `authorization:${header}`;
  const cookie = request.cookies?.[ACCESS_COOKIE];
  if (cookie) return `cookie:${cookie}`;
  return 'anonymous';
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

export interface Fingerprint {
  scopeHash: string;
  key: string;
  method: string;
  path: string;
  requestHash: string;
}

/**
 * What identifies a request under a key. The scope is a SHA-256 of the credential, so two callers never
 * share a key and the row holds no token. The request hash is keyed by the credential too: a body holding
 * a password (an account created by an admin) cannot be guessed back from the table without the token.
 */
export function fingerprint(request: FastifyRequest, key: string, mac: (text: string) => string): Fingerprint {
  const credential = credentialOf(request);
  const tenant = request.headers['x-tenant-id'];
  const body = request.body === undefined ? '' : JSON.stringify(request.body);
  const requestHash = mac(
    `${credential}\n${request.method}\n${request.url}\n${typeof tenant === 'string' ? tenant : ''}\n${body ?? ''}`,
  );
  return {
    scopeHash: sha256(credential),
    key,
    method: request.method,
    path: pathOf(request.url),
    requestHash,
  };
}

/** Whether an Idempotency-Key on this request is honoured: writes under /api, credential endpoints aside. */
function applies(request: FastifyRequest): boolean {
  if (!WRITE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return false;
  if (request.routeOptions.config?.idempotency === false) return false;
  const path = pathOf(request.url);
  return !EXCLUDED_PREFIXES.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix);
}

interface Claim {
  scopeHash: string;
  key: string;
  attemptId: string;
}

/** What is kept of an answer: the body when it is small JSON (or empty), else nothing but the status. */
function storable(payload: unknown, contentType: string | undefined): { body: string | null; type: string | null } {
  let text: string | undefined;
  if (payload === null || payload === undefined) text = '';
  else if (typeof payload === 'string') text = payload;
  else if (Buffer.isBuffer(payload)) text = payload.toString('utf8');
  // A stream (a file) is neither small nor JSON.
  if (text === undefined) return { body: null, type: null };
  if (text === '') return { body: '', type: contentType ?? null };
  if (!contentType || !JSON_TYPE_RE.test(contentType) || Buffer.byteLength(text) >= MAX_STORED_BODY) {
    return { body: null, type: null };
  }
  return { body: text, type: contentType };
}

/**
 * Idempotency-Key for writes replayed by the service worker: the first answer is kept 24 h and a replay
 * gets it back (with `Idempotent-Replayed: true`) instead of running the route a second time.
 *
 * The check runs as the LAST preHandler of every route, after authentication and body validation: a
 * request refused before its handler leaves no row (a replay is checked again, the same way), and a
 * replay is only answered to a caller the route would still accept. From there on, whatever final status
 * under 500 the route answers is kept (a 400 from the handler is replayed as a 400); a 5xx deletes the
 * row so that a server failure stays retryable.
 *
 * Limits: only routes registered after this plugin are covered (app.ts registers it before the routes).
 * The scope is the user when authenticated (a replay after a token refresh is recognised), else the
 * credential as presented; anonymous callers share one scope (their keys are random UUIDs). Only status, body and content type
 * are replayed, not other headers (Set-Cookie, Location, Retry-After).
 */
export default fp(
  async (app) => {
    const db = app.database.db;
    const claims = new WeakMap<FastifyRequest, Claim>();
    let lastPurge = 0;

    const purge = async (request: FastifyRequest) => {
      if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
      lastPurge = Date.now();
      try {
        await db
          .delete(idempotencyKeys)
          .where(lt(idempotencyKeys.createdAt, sql`now() - make_interval(secs => ${IDEMPOTENCY_TTL_MS / 1000})`));
      } catch (err) {
        request.log.warn({ err }, 'idempotency purge failed');
      }
    };

    /**
     * Takes the key for this attempt: a new row, or one that has expired (older than 24 h) or was left
     * in_progress by an attempt that died. One statement, so of two concurrent attempts only one wins.
     */
    const tryClaim = async (print: Fingerprint, attemptId: string): Promise<boolean> => {
      const rows = await db
        .insert(idempotencyKeys)
        .values({ ...print, state: 'in_progress', attemptId })
        .onConflictDoUpdate({
          target: [idempotencyKeys.scopeHash, idempotencyKeys.key],
          set: {
            method: print.method,
            path: print.path,
            requestHash: print.requestHash,
            state: 'in_progress',
            attemptId,
            statusCode: null,
            responseBody: null,
            contentType: null,
            createdAt: sql`now()`,
          },
          setWhere: sql`${idempotencyKeys.createdAt} < now() - make_interval(secs => ${IDEMPOTENCY_TTL_MS / 1000})
            or (${idempotencyKeys.state} = 'in_progress'
                and ${idempotencyKeys.createdAt} < now() - make_interval(secs => ${IDEMPOTENCY_LEASE_MS / 1000}))`,
        })
        .returning({ attemptId: idempotencyKeys.attemptId });
      return rows[0]?.attemptId === attemptId;
    };

    const replay = (reply: FastifyReply, row: typeof idempotencyKeys.$inferSelect) => {
      reply.code(row.statusCode ?? 200).header(REPLAYED_HEADER, 'true');
      if (row.responseBody === null) return reply.type('application/json; charset=utf-8').send('null');
      if (row.contentType) reply.type(row.contentType);
      return reply.send(row.responseBody === '' ? undefined : row.responseBody);
    };

    const check: preHandlerAsyncHookHandler = async function (request, reply) {
      const raw = request.headers[IDEMPOTENCY_HEADER];
      if (raw === undefined || !applies(request)) return;
      if (typeof raw !== 'string' || !KEY_RE.test(raw)) {
        throw new ApiError(400, 'invalid_idempotency_key', 'En-tête Idempotency-Key invalide.');
      }
      const print = fingerprint(request, raw, (text) => app.secretBox.mac(text));
      const attemptId = randomUUID();
      // A row can vanish between the claim and the read (its attempt failed with a 5xx): claim again.
      for (let round = 0; round < 3; round++) {
        if (await tryClaim(print, attemptId)) {
          claims.set(request, { scopeHash: print.scopeHash, key: print.key, attemptId });
          await purge(request);
          return;
        }
        const [row] = await db
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.scopeHash, print.scopeHash), eq(idempotencyKeys.key, print.key)));
        if (!row) continue;
        if (row.method !== print.method || row.path !== print.path || row.requestHash !== print.requestHash) {
          throw reused();
        }
        if (row.state !== 'done') {
          throw inProgress();
        }
        return replay(reply, row);
      }
      throw inProgress();
    };

    // Appended to each route's own preHandlers, so it runs after authentication, whichever hook a route uses.
    app.addHook('onRoute', (route) => {
      const own = route.preHandler;
      route.preHandler = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), check];
    });

    const release = async (request: FastifyRequest, claim: Claim) => {
      await db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.scopeHash, claim.scopeHash),
            eq(idempotencyKeys.key, claim.key),
            eq(idempotencyKeys.attemptId, claim.attemptId),
          ),
        )
        .catch((err: unknown) => request.log.error({ err }, 'idempotency release failed'));
    };

    app.addHook('onSend', async (request, reply, payload) => {
      const claim = claims.get(request);
      if (!claim) return payload;
      claims.delete(request);
      const status = reply.statusCode;
      if (status >= 500) {
        await release(request, claim);
        return payload;
      }
      const header = reply.getHeader('content-type');
      const kept = storable(payload, typeof header === 'string' ? header : undefined);
      try {
        await db
          .update(idempotencyKeys)
          .set({ state: 'done', statusCode: status, responseBody: kept.body, contentType: kept.type })
          .where(
            and(
              eq(idempotencyKeys.scopeHash, claim.scopeHash),
              eq(idempotencyKeys.key, claim.key),
              eq(idempotencyKeys.attemptId, claim.attemptId),
            ),
          );
      } catch (err) {
        // Not kept: better a retry that runs again than a key stuck in_progress for the lease.
        request.log.error({ err }, 'idempotency store failed');
        await release(request, claim);
      }
      return payload;
    });

    // The answer never went through onSend (the connection died first): free the key for a retry.
    app.addHook('onResponse', async (request) => {
      const claim = claims.get(request);
      if (!claim) return;
      claims.delete(request);
      await release(request, claim);
    });
  },
  { name: 'idempotency', dependencies: ['database', 'authentication'] },
);
