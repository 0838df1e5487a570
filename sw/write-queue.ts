/// <reference lib="webworker" />
import { Queue } from 'workbox-background-sync';
import { kvGet } from '../src/lib/storage.ts';
import { QUEUEABLE_HEADER, QUEUED_MESSAGE, SOURCE_HEADER, type WorkerToPageMessage } from '../contract/sw-messages.ts';
import { AUTH_SCHEME_HEADER, isAuthEndpoint, normalizePath, replayRequest, storedAuthScheme } from './policy.ts';
import { mockModeAnswer, noteWrite } from './api-layer.ts';
import { areaSampleResponse } from './mock-api.ts';
import { sampleAreaOf } from './samples.ts';

declare const self: ServiceWorkerGlobalScope;

async function broadcast(message: WorkerToPageMessage): Promise<void> {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

interface SessionRecord {
  tokens?: { access_token?: string };
  profile?: { id?: string | number };
}

async function currentSession(): Promise<{ token: string | undefined; userId: string | undefined }> {
  const s = await kvGet<SessionRecord>('session').catch(() => undefined);
  return { token: s?.tokens?.access_token, userId: s?.profile?.id === undefined ? undefined : String(s.profile.id) };
}

let replaying: Promise<void> | undefined;

/**
 * Replays queued writes in order with the current token. A network failure stops the run and keeps the
 * write first in line; a 4xx is final and reported to the page with the server's message.
 */
async function replay(queue: Queue): Promise<void> {
  let entry;
  while ((entry = await queue.shiftRequest())) {
    const { token, userId } = await currentSession();
    if (!token) {
      await queue.unshiftRequest(entry);
      break;
    }
    // A write belongs to whoever made it: never replay one user's change with another user's token.
    if ((entry.metadata as { userId?: string } | undefined)?.userId !== userId) continue;
    let response: Response;
    try {
      response = await fetch(replayRequest(entry.request, token, QUEUEABLE_HEADER));
    } catch (err) {
      await queue.unshiftRequest(entry);
      throw err;
    }
    if (
      response.status === 409 &&
      (
        (await response
          .clone()
          .json()
          .catch(() => ({}))) as { code?: unknown }
      ).code === 'idempotency_in_progress'
    ) {
      // The first attempt is still running on the server: ask again later rather than report a refusal.
      await queue.unshiftRequest(entry);
      break;
    }
    if (response.status >= 400 && response.status < 500) {
      const body = (await response.json().catch(() => ({}))) as { detail?: unknown };
      await broadcast({
        type: 'WRITE_REFUSED',
        status: response.status,
        url: new URL(entry.request.url).pathname,
        detail: typeof body.detail === 'string' ? body.detail : `Erreur ${response.status}`,
      });
    } else if (response.status >= 500) {
      // The server failed: keep the write for a later attempt (the Idempotency-Key makes that safe).
      await queue.unshiftRequest(entry);
      break;
    }
  }
  await broadcast({ type: 'QUEUE', pending: (await queue.getAll()).length });
}

export const writeQueue = new Queue('vigie-writes', {
  maxRetentionTime: 24 * 60,
  onSync: async ({ queue }) => {
    replaying ??= replay(queue).finally(() => (replaying = undefined));
    await replaying;
  },
});

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000];

/**
 * When the page says it is back online (and for browsers without the Sync API: Firefox, Safari). The network can
 * take a moment to carry requests after the 'online' event (hotel Wi-Fi portals, a waking radio), and a failed run
 * would otherwise wait for the browser's next sync attempt, minutes away: retry a few times, backing off.
 */
export async function replayNow(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      replaying ??= replay(writeQueue).finally(() => (replaying = undefined));
      await replaying;
      return;
    } catch {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export async function clearWriteQueue(): Promise<void> {
  while (await writeQueue.shiftRequest()) {
    /* drop */
  }
  await broadcast({ type: 'QUEUE', pending: 0 });
}

export async function pendingWrites(): Promise<number> {
  return (await writeQueue.getAll()).length;
}

/**
 * POST, PUT, PATCH, DELETE /api/…: straight to the network; when it is down and the app marked the write
 * queueable, the write is stored (without its Authorization header) and answered 202, marked 'queued'.
 */
export async function handleApiWrite(event: FetchEvent): Promise<Response> {
  const request = event.request;
  const pathname = normalizePath(new URL(request.url).pathname);
  // Mock API mode: a task launch gets the simulation, other writes are refused on the device; none is queued.
  const mocked = await mockModeAnswer(request);
  if (mocked) return mocked;
  const queueable = request.headers.get(QUEUEABLE_HEADER) === '1' && request.headers.has('Idempotency-Key');
  const body = queueable ? await request.clone().arrayBuffer() : undefined;
  // spec §8: a launch URL the backend does not serve (404), or no network at all, gets the marked launch simulation.
  const launch = sampleAreaOf(request.method, pathname) === 'task-run' ? request.clone() : null;
  try {
    const response = await fetch(request);
    if (response.ok) event.waitUntil(noteWrite(request));
    if (response.status === 404 && launch) return (await areaSampleResponse(launch)) ?? response;
    return response;
  } catch (err) {
    if (launch) {
      const simulated = await areaSampleResponse(launch);
      if (simulated) return simulated;
    }
    if (!queueable || isAuthEndpoint(pathname)) throw err;
    const headers = new Headers(request.headers);
    const scheme = storedAuthScheme(request.headers.get('Authorization'));
    if (scheme) headers.set(AUTH_SCHEME_HEADER, scheme);
    headers.delete('Authorization');
    headers.delete('Cookie');
    await writeQueue.pushRequest({
      request: new Request(request.url, { method: request.method, headers, body, credentials: 'same-origin' }),
      metadata: { userId: (await currentSession()).userId },
    });
    await broadcast({ type: 'QUEUE', pending: await pendingWrites() });
    return new Response(JSON.stringify({ detail: QUEUED_MESSAGE, queued: true }), {
      status: 202,
      headers: { 'Content-Type': 'application/json; charset=utf-8', [SOURCE_HEADER]: 'queued' },
    });
  }
}
