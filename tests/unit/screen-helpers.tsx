import { act, type ReactNode } from 'react';
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
  /** Renders `element` inside act (at `url` when one is given), then lets it settle. */
  render: (element: ReactNode, url?: string) => Promise<void>;
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

/** Changes the signed-in profile (its flags, say), keeping the rest of the session. */
export function withProfile(changes: Record<string, unknown>) {
  session.value = { ...session.value!, profile: { ...session.value!.profile, ...changes } };
}

/** A paged list answer holding `results`, all on one page. */
export const paged = (results: unknown[]) => json({ count: results.length, next: null, previous: null, results });

/**
 * Sets a form field's value as typing or picking does, and fires the event React listens for: `change` on a
 * select, `input` on the others. Not wrapped in act: see typeInto.
 */
export function setValue(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, value: string) {
  const proto =
    el instanceof HTMLSelectElement
      ? HTMLSelectElement.prototype
      : el instanceof HTMLTextAreaElement
        ? HTMLTextAreaElement.prototype
        : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

/** setValue inside act. */
export function typeInto(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, value: string) {
  act(() => setValue(el, value));
}

/** What tests read on a screen: its text, an element, a button by its exact label, and the writes it sent. */
export function screenQueries(screen: Screen) {
  return {
    text: () => screen.container.textContent ?? '',
    $: <T extends Element = HTMLElement>(selector: string) => screen.container.querySelector<T>(selector)!,
    button: (label: string) =>
      [...screen.container.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === label)!,
    writes: () => screen.calls.filter((c) => c.method !== 'GET'),
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
  const screen = {
    calls: [],
    handler: () => json({}),
    async render(element: ReactNode, url?: string) {
      if (url !== undefined) window.history.replaceState(null, '', url);
      act(() => screen.root.render(element));
      await settle();
    },
  } as unknown as {
    container: HTMLDivElement;
    root: Root;
    calls: RecordedCall[];
    handler: ScreenHandler;
    render: (element: ReactNode, url?: string) => Promise<void>;
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
