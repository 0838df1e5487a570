import { signal } from '@preact/signals-react';

/** Browser connectivity as the page sees it; the service worker issue adds backend reachability. */
export const online = signal(typeof navigator === 'undefined' ? true : navigator.onLine);

if (typeof window !== 'undefined') {
  window.addEventListener('online', () => (online.value = true));
  window.addEventListener('offline', () => (online.value = false));
}
