import { expect } from 'vitest';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { tenants } from '../../../server/src/db/schema.ts';
import { signIn, type TestApp } from '../helpers.ts';

export type Method = NonNullable<InjectOptions['method']>;
export type Reply = LightMyRequestResponse;

export interface RequestOptions {
  /** The body: JSON for an object, sent as is for a string or a Buffer. */
  payload?: unknown;
  /** X-Tenant-ID: a seeded tenant's name ('Acme Sécurité', 'Banque Horizon'), else sent as given. */
  tenant?: string;
  /** More headers; they may replace the Authorization header, never X-Tenant-ID. */
  headers?: Record<string, string>;
}

/** Requests of one signed-in user: the bearer token on each, and a tenant when one is given. */
export interface Session {
  readonly username: string;
  readonly access: string;
  readonly refresh: string;
  request: (method: Method, url: string, opts?: RequestOptions) => Promise<Reply>;
  get: (url: string, opts?: RequestOptions) => Promise<Reply>;
  delete: (url: string, opts?: RequestOptions) => Promise<Reply>;
  post: (url: string, payload?: unknown, opts?: RequestOptions) => Promise<Reply>;
  put: (url: string, payload?: unknown, opts?: RequestOptions) => Promise<Reply>;
  patch: (url: string, payload?: unknown, opts?: RequestOptions) => Promise<Reply>;
}

function inject(
  app: FastifyInstance,
  access: string,
  tenantId: string | undefined,
  method: Method,
  url: string,
  opts: RequestOptions,
) {
  const headers: Record<string, string> = { authorization: `Bearer ${access}`, ...opts.headers };
  if (tenantId !== undefined) headers['x-tenant-id'] = tenantId;
  return app.inject({
    method,
    url,
    headers,
    ...(opts.payload !== undefined ? { payload: opts.payload as object } : {}),
  });
}

function sessionOf(
  username: string,
  tokens: { access: string; refresh: string },
  request: (method: Method, url: string, opts?: RequestOptions) => Promise<Reply>,
): Session {
  const withBody =
    (method: Method) =>
    (url: string, payload?: unknown, opts: RequestOptions = {}) =>
      request(method, url, payload !== undefined ? { ...opts, payload } : opts);
  return {
    username,
    access: tokens.access,
    refresh: tokens.refresh,
    request,
    get: (url, opts) => request('GET', url, opts),
    delete: (url, opts) => request('DELETE', url, opts),
    post: withBody('POST'),
    put: withBody('PUT'),
    patch: withBody('PATCH'),
  };
}

/** Signs `username` in (password TEST_PASSWORD unless given) and returns their session; `tenant` is an id. */
export async function signedIn(
  app: FastifyInstance,
  username: string,
  opts: { tenant?: string; password?: string } = {},
): Promise<Session> {
  const tokens = await signIn(app, username, opts.password);
  return sessionOf(username, tokens, (method, url, o = {}) =>
    inject(app, tokens.access, o.tenant ?? opts.tenant, method, url, o),
  );
}

/** The API as the demo's users: each signs in once, on first use (sign-ins are rate limited). */
export interface Api {
  /** One request as `username`. */
  call: (username: string, method: Method, url: string, opts?: RequestOptions) => Promise<Reply>;
  /** `username`'s session (signing them in if need be); its requests resolve tenant names as `call` does. */
  as: (username: string) => Promise<Session>;
  /** `username`'s access token. */
  token: (username: string) => Promise<string>;
  /** The Authorization header of `username`, and X-Tenant-ID when a tenant is given. */
  headers: (username: string, tenant?: string) => Promise<Record<string, string>>;
  /** Signs these users in now, in this order (for suites that count sign-ins or log lines). */
  signInAll: (...usernames: string[]) => Promise<void>;
  /** The id of a seeded tenant by name; any other value is returned as is. */
  tenantId: (nameOrId: string) => Promise<string>;
}

export function apiFor(t: TestApp | (() => TestApp)): Api {
  const app = () => (typeof t === 'function' ? t() : t).app;
  const sessions = new Map<string, Session>();
  let tenantIds: Map<string, string> | undefined;

  const tenantId = async (nameOrId: string) => {
    tenantIds ??= new Map(
      (
        await (typeof t === 'function' ? t() : t).database.db
          .select({ id: tenants.id, name: tenants.name })
          .from(tenants)
      ).map((r) => [r.name, r.id]),
    );
    return tenantIds.get(nameOrId) ?? nameOrId;
  };
  const request = async (access: string, method: Method, url: string, opts: RequestOptions = {}) =>
    inject(app(), access, opts.tenant !== undefined ? await tenantId(opts.tenant) : undefined, method, url, opts);
  const as = async (username: string) => {
    let session = sessions.get(username);
    if (!session) {
      const tokens = await signIn(app(), username);
      session = sessionOf(username, tokens, (method, url, opts) => request(tokens.access, method, url, opts));
      sessions.set(username, session);
    }
    return session;
  };

  return {
    as,
    call: async (username, method, url, opts) => (await as(username)).request(method, url, opts),
    token: async (username) => (await as(username)).access,
    headers: async (username, tenant) => ({
      authorization: `Bearer ${(await as(username)).access}`,
      ...(tenant !== undefined ? { 'x-tenant-id': await tenantId(tenant) } : {}),
    }),
    signInAll: async (...usernames) => {
      for (const username of usernames) await as(username);
    },
    tenantId,
  };
}

/** The JSON body of an answer that must have this status (the body is shown when it has not). */
export function jsonOf<T = ReturnType<Reply['json']>>(res: Reply, status: number): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json<T>();
}

/**
 * The JSON body of an answer that must have this status and exactly these fields, in any order (the body is shown
 * when the status is not the one expected). Untyped unless T is given, as res.json() is.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jsonWithFields<T = any>(res: Reply, status: number, fields: readonly string[]): T {
  const body = jsonOf<Record<string, unknown>>(res, status);
  expect(Object.keys(body).sort()).toEqual([...fields].sort());
  return body as T;
}
