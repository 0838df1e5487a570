import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/lib/auth/session.ts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface Answer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The answer to a call; a promise keeps the request pending until it settles. */
export type Handler = (call: Call) => Answer | Promise<Answer>;

/** The page the call asks for (`page`, `page_size`) of a list of `total` rows made by `row(index)`. */
export function pageOf<T>(call: Call, total: number, row: (index: number) => T): Answer {
  const size = Number(call.query.page_size);
  const start = (Number(call.query.page) - 1) * size;
  const results = Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, k) => row(start + k));
  return { body: { count: total, next: null, previous: null, results } };
}

/** Answers every API call with `handler`, recording the calls. */
export function mockApi(handler: Handler): Call[] {
  const calls: Call[] = [];
  setClientEnvironment({
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://localhost',
      );
      const call: Call = {
        method: init?.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
      };
      calls.push(call);
      return Promise.resolve(handler(call)).then(
        (answer) =>
          new Response(JSON.stringify(answer.body), {
            status: answer.status ?? 200,
            headers: { 'content-type': 'application/json', ...answer.headers },
          }),
      );
    },
  });
  return calls;
}

export function setup() {
  const container = document.createElement('div');
  document.body.append(container);
  const root: Root = createRoot(container);
  return {
    container,
    render(url: string, node: ReactNode) {
      window.history.replaceState(null, '', url);
      act(() => root.render(node));
    },
    cleanup() {
      act(() => root.unmount());
      container.remove();
      resetApiClient();
    },
  };
}

/** Lets pending fetches and effects settle until `check` passes (or fails after ~1 s). */
export async function until(check: () => void, tries = 100): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      check();
      return;
    } catch (err) {
      if (i >= tries) throw err;
      await act(async () => {
        await new Promise((r) => setTimeout(r, 10));
      });
    }
  }
}

/** fr-FR number as `text()` reads it (its narrow no-break spaces normalised to spaces). */
export const fr = (n: number) => new Intl.NumberFormat('fr-FR').format(n).replace(/\s/g, ' ');

export function text(el: Element | null | undefined): string {
  return (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Each row of the tables under `el`, its cells joined by ' | '. */
export function tableRows(el: Element | null | undefined): string[] {
  return [...(el?.querySelectorAll('tr') ?? [])].map((tr) =>
    [...tr.querySelectorAll('th, td')].map((c) => text(c)).join(' | '),
  );
}

/** A signed-in session holding `role` in the current tenant (the screens gate their forms on it). */
export function signInAs(role: string) {
  session.value = {
    tokens: { access_token: 'a', refresh_token: 'r', expires_at: Date.now() + 3_600_000 },
    profile: { id: 1, username: 'u', email: 'u@example.org', role },
  };
}

/** happy-dom lays nothing out: gives the findings list's scroller a viewport of `px`; answers the undo. */
export function withScrollerHeight(px = 600): () => void {
  const desc = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
    configurable: true,
    get(this: Element) {
      return this.classList.contains('vuln-scroller') ? px : 0;
    },
  });
  return () => {
    if (desc) Object.defineProperty(HTMLElement.prototype, 'clientHeight', desc);
    else delete (HTMLElement.prototype as { clientHeight?: number }).clientHeight;
  };
}
