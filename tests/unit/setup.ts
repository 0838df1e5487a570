import 'fake-indexeddb/auto';

/**
 * Workbox's development build (the one Vitest loads: NODE_ENV is not 'production') asserts
 * `event instanceof ExtendableEvent`, a class only a worker's scope defines. Here, any event that can extend its
 * lifetime passes (the service-worker suites hand plain objects with `waitUntil`), and Workbox's console logs stay quiet.
 */
if (typeof ExtendableEvent === 'undefined') {
  (globalThis as { __WB_DISABLE_DEV_LOGS?: boolean }).__WB_DISABLE_DEV_LOGS = true;
  Object.defineProperty(globalThis, 'ExtendableEvent', {
    configurable: true,
    writable: true,
    value: class {
      static [Symbol.hasInstance](value: unknown): boolean {
        return typeof (value as { waitUntil?: unknown } | null)?.waitUntil === 'function';
      }
    },
  });
}
