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
  void applyUpdate?.(true);
}
