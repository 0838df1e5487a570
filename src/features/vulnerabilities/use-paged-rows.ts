import { useCallback, useEffect, useRef, useState } from 'react';
import type { DataOrigin } from '../../lib/api-client.ts';
import { fetchVulnerabilityPage, type ListQuery } from './api/vulnerabilities.ts';
import type { Vulnerability } from './api/types.ts';
import { messageOf } from '../../lib/error-message.ts';

export const PAGE_SIZE = 200;
/** Pages kept in memory around the visible rows (the rest is dropped and fetched again if needed). */
export const PAGES_KEPT = 10;

interface PagedState {
  key: string;
  total: number | null;
  pages: ReadonlyMap<number, Vulnerability[]>;
  origin?: DataOrigin;
  error?: string;
}

/**
 * Rows of the filtered list, fetched page by page (1-based, PAGE_SIZE rows) as the visible range needs them;
 * pages far from the visible range are forgotten. A new `key` (filters) starts over.
 */
export function usePagedRows(key: string, query: ListQuery) {
  const [state, setState] = useState<PagedState>({ key, total: null, pages: new Map() });
  const inflight = useRef(new Set<string>());
  const visible = useRef({ first: 0, last: 0 });
  const queryRef = useRef(query);
  const keyRef = useRef(key);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    queryRef.current = query;
    keyRef.current = key;
  });

  const loadPage = useCallback((forKey: string, page: number) => {
    const id = `${forKey}#${page}`;
    if (inflight.current.has(id)) return;
    inflight.current.add(id);
    fetchVulnerabilityPage(queryRef.current, page, PAGE_SIZE).then(
      ({ data, origin }) => {
        inflight.current.delete(id);
        if (keyRef.current !== forKey) return;
        setState((s) => {
          const base = s.key === forKey ? s : { key: forKey, total: null, pages: new Map<number, Vulnerability[]>() };
          const pages = new Map(base.pages);
          pages.set(page, Array.isArray(data.results) ? data.results : []);
          // Forget the pages farthest from what is on screen.
          const centre = Math.floor((visible.current.first + visible.current.last) / 2 / PAGE_SIZE) + 1;
          if (pages.size > PAGES_KEPT) {
            const far = [...pages.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
            for (const p of far.slice(0, pages.size - PAGES_KEPT)) pages.delete(p);
          }
          const total = typeof data.count === 'number' ? data.count : (base.total ?? pages.get(page)!.length);
          return { key: forKey, total, pages, origin, error: undefined };
        });
      },
      (err: unknown) => {
        inflight.current.delete(id);
        if (keyRef.current !== forKey) return;
        setState((s) => ({
          ...(s.key === forKey ? s : { key: forKey, total: null, pages: new Map() }),
          error: messageOf(err),
        }));
      },
    );
  }, []);

  // The first page gives the total.
  useEffect(() => {
    loadPage(key, 1);
  }, [key, attempt, loadPage]);

  const current: PagedState = state.key === key ? state : { key, total: null, pages: new Map() };

  /** Called with the visible row range (0-based, inclusive) whenever it changes. */
  const ensureRange = useCallback(
    (first: number, last: number) => {
      visible.current = { first, last };
      if (first > last) return;
      const firstPage = Math.floor(first / PAGE_SIZE) + 1;
      const lastPage = Math.floor(last / PAGE_SIZE) + 1;
      for (let p = firstPage; p <= lastPage; p++) {
        if (!current.pages.has(p)) loadPage(key, p);
      }
    },
    [current.pages, key, loadPage],
  );

  const rowAt = (index: number): Vulnerability | undefined =>
    current.pages.get(Math.floor(index / PAGE_SIZE) + 1)?.[index % PAGE_SIZE];

  return {
    total: current.total,
    origin: current.origin,
    error: current.error,
    loadedPages: current.pages.size,
    rowAt,
    ensureRange,
    retry: () => setAttempt((n) => n + 1),
  };
}
