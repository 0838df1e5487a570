import { signal } from '@preact/signals-react';

/** Writes made offline that wait for the network (the service worker's queue). */
export const pendingWrites = signal(0);
/** The last queued write the server refused for good, with its message. */
export const refusedWrite = signal<string | null>(null);

/** Listens to the service worker's queue reports; asks for a replay whenever the browser is back online. */
export function watchWriteQueue(): void {
  const sw = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!sw) return;
  sw.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { type?: string; pending?: number; detail?: string } | null;
    if (data?.type === 'QUEUE' && typeof data.pending === 'number') pendingWrites.value = data.pending;
    if (data?.type === 'WRITE_REFUSED')
      refusedWrite.value = data.detail ?? 'Une modification a été refusée par le serveur.';
  });
  const ask = (type: string) => sw.controller?.postMessage({ type });
  window.addEventListener('online', () => ask('REPLAY'));
  void sw.ready.then(() => ask('QUEUE_STATUS'));
}
