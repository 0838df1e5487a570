import { signal } from '@preact/signals-react';
import { registerSW } from 'virtual:pwa-register';

/** True when a new service worker waits; the layout offers 'Recharger'. */
export const updateAvailable = signal(false);
let applyUpdate: ((reload?: boolean) => Promise<void>) | undefined;

export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  applyUpdate = registerSW({
    immediate: true,
    onNeedRefresh() {
      updateAvailable.value = true;
    },
  });
}

export function reloadToUpdate(): void {
  // Workbox reloads only for an update it found itself; one found by the browser's own check (an external
  // worker) takes control without a reload. Reload on the switch of controller in every case.
  navigator.serviceWorker?.addEventListener('controllerchange', () => window.location.reload(), { once: true });
  void applyUpdate?.(true);
}
