import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, vi } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/lib/auth/session.ts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface RecordedCall {
  method: string;
  url: URL;
  body: unknown;
  /** Lower-case header names (absent on calls a test records itself). */
  headers?: Record<string, string>;
}

export type ScreenHandler = (method: string, url: URL, body: unknown) => Response;

/** A screen mounted fresh for each test, with every API call recorded and answered by `handler`. */
export interface Screen {
  readonly container: HTMLDivElement;
  readonly root: Root;
  readonly calls: RecordedCall[];
  handler: ScreenHandler;
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function signIn(role: string) {
  session.value = {
    tokens: { access_token: 'tok', refresh_token: 'ref', expires_at: Date.now() + 3_600_000 },
    profile: { id: 1, username: 'ana', email: 'ana@example.fr', role },
  };
}

/** Lets pending answers and renders run (advancing fake timers by 1 ms a step when they are on). */
export async function settle() {
  for (let i = 0; i < 5; i++) {
    await act(async () => {
      if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(1);
      else await new Promise((resolve) => setTimeout(resolve, 0));
    });
  }
}

/**
 * Registers the hooks that, around each test, install the fetch recorder, mount a fresh root (signed in as a
 * `user`) and tear everything down again. Call once at the top of a test file.
 */
export function setupScreen({ fakeTimers = false }: { fakeTimers?: boolean } = {}): Screen {
  const screen = { calls: [], handler: () => json({}) } as unknown as {
    container: HTMLDivElement;
    root: Root;
    calls: RecordedCall[];
    handler: ScreenHandler;
  };

  beforeEach(() => {
    if (fakeTimers) vi.useFakeTimers();
    screen.calls = [];
    setClientEnvironment({
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const url = new URL(
          typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
          'http://localhost',
        );
        const method = (init?.method ?? 'GET').toUpperCase();
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body;
        screen.calls.push({
          method,
          url,
          body,
          headers: Object.fromEntries(
            [...new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).entries()].map(
              ([k, v]) => [k.toLowerCase(), v],
            ),
          ),
        });
        return screen.handler(method, url, body);
      },
    });
    screen.container = document.createElement('div');
    document.body.append(screen.container);
    screen.root = createRoot(screen.container);
    signIn('user');
  });
  afterEach(() => {
    act(() => screen.root.unmount());
    screen.container.remove();
    resetApiClient();
    if (fakeTimers) vi.useRealTimers();
    vi.unstubAllGlobals();
    session.value = null;
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
  });
  return screen;
}
