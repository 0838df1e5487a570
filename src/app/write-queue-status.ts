import { signal } from '@preact/signals-react';
import { WRITE_REFUSED_FALLBACK, workerMessageOf, type PageToWorkerMessage } from '../../contract/sw-messages.ts';

/** Writes made offline that wait for the network (the service worker's queue). */
export const pendingWrites = signal(0);
/** The last queued write the server refused for good, with its message. */
export const refusedWrite = signal<string | null>(null);

/** Listens to the service worker's queue reports; asks for a replay whenever the browser is back online. */
export function watchWriteQueue(): void {
  const sw = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!sw) return;
  sw.addEventListener('message', (event: MessageEvent) => {
    const message = workerMessageOf(event.data);
    if (message?.type === 'QUEUE') pendingWrites.value = message.pending;
    if (message?.type === 'WRITE_REFUSED') refusedWrite.value = message.detail || WRITE_REFUSED_FALLBACK;
  });
  const ask = (type: PageToWorkerMessage['type']) => sw.controller?.postMessage({ type } satisfies PageToWorkerMessage);
  window.addEventListener('online', () => ask('REPLAY'));
  void sw.ready.then(() => ask('QUEUE_STATUS'));
}
