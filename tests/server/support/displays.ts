import type { FastifyInstance, InjectOptions } from 'fastify';
import { jsonOf, type Method } from './api.ts';

// What the wall-screen suites share (issue 22, docs/displays.md): the contract's fields and messages, a screen's requests.

export const DISPLAY_FIELDS = [
  'id',
  'name',
  'tenants',
  'panels',
  'rotation_s',
  'theme',
  'text_size',
  'created_at',
  'created_by',
  'last_seen_at',
  'last_ip',
  'version',
  'revoked_at',
] as const;
export const ALL_PANELS = [
  'vulnerabilities',
  'act',
  'kev',
  'threats',
  'tasks',
  'overdue',
  'risks',
  'events',
  'overview',
];
export const DISPLAY_FORBIDDEN = {
  detail: 'Écran d’affichage : accès limité aux panneaux du mur.',
  code: 'display_forbidden',
};
export const DISPLAY_UNKNOWN = {
  detail: 'Écran révoqué ou inconnu : appairez-le à nouveau.',
  code: 'display_unknown',
};
export const WRONG_CODE = 'Code d’appairage inconnu ou expiré.';
export const CODE_RE = /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/;
export const TOKEN_RE = /^vgd_[A-Za-z0-9_-]{43}$/;

export interface Pairing {
  id: string;
  code: string;
  poll_secret: string;
  expires_at: string;
}

let ips = 0;
/** A client address of its own, so that each test spends its own pairing budget. */
export const freshIp = () => `198.51.100.${++ips}`;

/** The requests of a screen: anonymous while pairing, then with its credential. */
export function screenOf(app: () => FastifyInstance) {
  const pair = async (ip = freshIp()): Promise<Pairing> =>
    jsonOf(await app().inject({ method: 'POST', url: '/api/displays/pairings/', payload: {}, remoteAddress: ip }), 201);
  const poll = (p: Pick<Pairing, 'id' | 'poll_secret'>) =>
    app().inject({
      method: 'GET',
      url: `/api/displays/pairings/${p.id}/`,
      headers: { 'x-display-pairing': p.poll_secret },
    });
  const as = (
    token: string,
    method: Method,
    url: string,
    opts: { tenant?: string; headers?: Record<string, string>; remoteAddress?: string; payload?: unknown } = {},
  ) => {
    const request: InjectOptions = {
      method,
      url,
      headers: {
        authorization: `Display ${token}`,
        ...(opts.tenant !== undefined ? { 'x-tenant-id': opts.tenant } : {}),
        ...opts.headers,
      },
      ...(opts.remoteAddress !== undefined ? { remoteAddress: opts.remoteAddress } : {}),
      ...(opts.payload !== undefined ? { payload: opts.payload as object } : {}),
    };
    return app().inject(request);
  };
  return { pair, poll, as };
}

/** An answer of the displays API as the suites read it: the fields they assert (exact field lists checked apart). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = Record<string, any>;
