import { effect } from '@preact/signals-react';
import { setClientEnvironment } from '../lib/api-client.ts';
import { mockApiMode } from './modes.ts';

/**
 * Mock API mode in the page: the API client's fetch answers from sw/mock-api.ts (loaded on first use, so the
 * samples stay out of the first download), so nothing reaches the server even before a service worker controls
 * the page. Identity calls (sign-in, refresh, sign-out) still go to the network.
 */
export const mockFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  const { mockResponse } = await import('../../sw/mock-api.ts');
  return (await mockResponse(request)) ?? fetch(request);
};

/** Follows the mock-mode switch. Returns the uninstaller. */
export function installMockFetch(): () => void {
  const stop = effect(() => {
    setClientEnvironment({ fetch: mockApiMode.value ? mockFetch : undefined });
  });
  return () => {
    stop();
    setClientEnvironment({ fetch: undefined });
  };
}
