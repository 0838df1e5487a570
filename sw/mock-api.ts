/**
 * Mock API mode (spec §1): every /api request is answered here, on the device, and the server sees none of them.
 * Pure, with no service-worker globals: the service worker answers with it, and so does the page's API client
 * (lazily loaded) for the requests it makes before a service worker controls it.
 *
 * - the spec §8 sample areas get their samples, a task launch the PENDING « Tâche lancée avec succès (simulation) »;
 * - a task cancel gets a simulated REVOKED task;
 * - other lists read as empty, other records as « introuvable »;
 * - other writes are refused with a French message: nothing is sent, nothing is pretended;
 * - identity calls (sign-in, refresh, sign-out, 2FA, password) are not data: they go to the server as usual
 *   (`null`), so a sign-out in mock mode still ends the session on the server.
 */
import { SOURCE_HEADER } from '../contract/sw-messages.ts';
import { isAuthEndpoint, isDownloadPath, isStreamPath, normalizePath } from './policy.ts';
import { sampleAreaOf, sampleBody } from './samples.ts';
import celeryTasks from '../sample-data/celery-tasks.json';

export interface MockAnswer {
  status: number;
  body: unknown;
}

export const MOCK_MESSAGES = {
  write: 'Mode API simulée : cette modification n’est pas envoyée au serveur.',
  notFound: 'Introuvable en mode API simulée : les données d’exemple ne contiennent pas cet élément.',
  download: 'Mode API simulée : aucun fichier n’est produit.',
  account: 'Mode API simulée : les informations du compte ne sont pas lues.',
} as const;

/** Reachability probes answered on the device (the spec §1 availability check and §9 health check). */
const PROBES = /^\/api\/(current-user|health|system\/health)\/?$/;
/** Client audit events wait in their buffer until mock mode ends (503 keeps them there). */
const AUDIT_EVENTS = /^\/api\/audit\/events\/?$/;
const RECORD_SEGMENT = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

const EMPTY_PAGE = { count: 0, next: null, previous: null, results: [], total: 0, page: 1, size: 0, pages: 0 };

function cancelAnswer(pathname: string, now: Date): MockAnswer {
  const id = pathname.split('/').find((s) => RECORD_SEGMENT.test(s));
  const task = celeryTasks.recent_tasks.find((t) => t.id === id);
  if (!task) return { status: 404, body: { detail: MOCK_MESSAGES.notFound, code: 'mock_mode' } };
  return {
    status: 200,
    body: {
      ...structuredClone(task),
      status: 'REVOKED',
      date_done: now.toISOString(),
      meta: { ...task.meta, revoked_by: 'simulation', reason: 'Annulation simulée' },
    },
  };
}

/** The answer to `method pathname` in mock mode; null for the identity calls that still go to the server. */
export function mockAnswer(method: string, rawPathname: string, body: unknown, now: Date): MockAnswer | null {
  const m = method.toUpperCase();
  const pathname = normalizePath(rawPathname.split(/[?#]/, 1)[0] ?? '');
  if (PROBES.test(pathname) && m === 'GET') return { status: 200, body: { status: 'ok', mock: true } };
  if (AUDIT_EVENTS.test(pathname)) return { status: 503, body: { detail: MOCK_MESSAGES.write, code: 'mock_mode' } };
  if (isAuthEndpoint(pathname)) return null;
  if (pathname.startsWith('/api/accounts/'))
    return { status: 503, body: { detail: MOCK_MESSAGES.account, code: 'mock_mode' } };
  if (isStreamPath(pathname)) return { status: 204, body: null };
  if (isDownloadPath(pathname)) return { status: 503, body: { detail: MOCK_MESSAGES.download, code: 'mock_mode' } };

  const area = sampleAreaOf(m, pathname);
  if (area) return { status: 200, body: sampleBody(area, { now, pathname, method: m, body }) };
  if (m === 'POST' && /^\/api\/(celery|tasks)\/.*\/(cancel|revoke)\/?$/.test(pathname))
    return cancelAnswer(pathname, now);
  if (m !== 'GET') return { status: 503, body: { detail: MOCK_MESSAGES.write, code: 'mock_mode' } };
  const last = pathname.replace(/\/+$/, '').split('/').at(-1) ?? '';
  if (RECORD_SEGMENT.test(last)) return { status: 404, body: { detail: MOCK_MESSAGES.notFound, code: 'mock_mode' } };
  return { status: 200, body: structuredClone(EMPTY_PAGE) };
}

/** The request's normalised pathname and its JSON body (writes; undefined when none or not JSON). */
async function readRequest(request: Request): Promise<{ pathname: string; body: unknown }> {
  const pathname = normalizePath(new URL(request.url).pathname);
  if (request.method === 'GET' || request.method === 'HEAD') return { pathname, body: undefined };
  const body: unknown = await request
    .clone()
    .json()
    .catch(() => undefined);
  return { pathname, body };
}

/** An answer made on the device, marked as sample data so no screen takes it for the server's. */
function sampleMarked(answer: MockAnswer, area: string): Response {
  return new Response(answer.status === 204 ? null : JSON.stringify(answer.body), {
    status: answer.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      [SOURCE_HEADER]: 'sample',
      'X-Vigie-Sample-Area': area,
    },
  });
}

/**
 * spec §8: the sample of the area `request` belongs to (its list, summary or launch), for a backend that does not serve
 * that area (404) or cannot be reached; null for a URL of no area, one record included.
 */
export async function areaSampleResponse(request: Request): Promise<Response | null> {
  const area = sampleAreaOf(request.method, new URL(request.url).pathname);
  if (!area) return null;
  const { pathname, body } = await readRequest(request);
  return sampleMarked(
    { status: 200, body: sampleBody(area, { now: new Date(), pathname, method: request.method, body }) },
    area,
  );
}

/** The answer to `request` in mock mode as a Response marked sample data; null when it goes to the server. */
export async function mockResponse(request: Request): Promise<Response | null> {
  const { pathname, body } = await readRequest(request);
  const answer = mockAnswer(request.method, pathname, body, new Date());
  return answer ? sampleMarked(answer, sampleAreaOf(request.method, pathname) ?? 'mock') : null;
}
