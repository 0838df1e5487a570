import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'wouter';
import type { Paged } from '../../contract/paged.ts';
import type { DataOrigin } from './api-client.ts';
import { messageOf } from './error-message.ts';
import { useResource, type Resource, type Sourced } from './use-resource.ts';

/** The number of pages of `count` items by `size` (at least 1). */
export function pageCount(count: number, size: number): number {
  return Math.max(1, Math.ceil(count / size));
}

function positiveInt(value: string | null | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export type ListQuery<F extends string> = Record<F, string> & { page: number };
export type QueryChanges<F extends string> = Partial<Record<F | 'page', string | number>>;

/**
 * A list's filters and page, kept in the URL (`?page=&<filter>=…`, so a view can be shared and survives a reload)
 * or, with `url: false`, in the screen's state. Values equal to their default (and page 1) stay out of the URL;
 * changing a filter starts over at page 1.
 */
export function useListQuery<F extends string>(
  defaults: Record<F, string>,
  { url = true }: { url?: boolean } = {},
): [ListQuery<F>, (changes: QueryChanges<F>) => void] {
  const [params, setParams] = useSearchParams();
  const [local, setLocal] = useState<Record<string, string>>({});
  const read = (key: string): string | null => (url ? params.get(key) : (local[key] ?? null));
  const query = { page: positiveInt(read('page'), 1) } as ListQuery<F>;
  for (const key of Object.keys(defaults) as F[]) (query as Record<string, unknown>)[key] = read(key) ?? defaults[key];

  const apply = (prev: URLSearchParams, changes: QueryChanges<F>): URLSearchParams => {
    const next = new URLSearchParams(prev);
    if (!('page' in changes)) next.delete('page');
    for (const [key, value] of Object.entries(changes)) {
      const text = String(value ?? '').trim();
      if (text === '' || (key === 'page' && text === '1') || text === (defaults as Record<string, string>)[key])
        next.delete(key);
      else next.set(key, text);
    }
    return next;
  };
  const update = (changes: QueryChanges<F>) => {
    if (url) setParams((prev) => apply(prev, changes), { replace: true });
    else setLocal((prev) => Object.fromEntries(apply(new URLSearchParams(prev), changes)));
  };
  return [query, update];
}

export interface PagedListOptions<F extends string, T> {
  /** The filters and their defaults. */
  filters: Record<F, string>;
  /** Keep filters and page in the URL (default) or in the screen's state. */
  url?: boolean;
  /** Reads one page. */
  load: (query: ListQuery<F>) => Promise<Sourced<T>>;
  /** How many pages the answer says there are. */
  pages: (data: T) => number;
  /** What else the list depends on (the current tenant…). */
  deps?: readonly unknown[];
}

export interface PagedList<F extends string, T> {
  query: ListQuery<F>;
  /** Changes filters (back to page 1) and/or the page. */
  update: (changes: QueryChanges<F>) => void;
  /** The page read; the previous page stays shown while the next one loads. */
  list: Resource<T>;
  pages: number;
}

/** The one way a list screen with a pager reads its pages: filters and page (`useListQuery`) and their answer. */
export function usePagedList<F extends string, T>({
  filters,
  url = true,
  load,
  pages,
  deps = [],
}: PagedListOptions<F, T>): PagedList<F, T> {
  const [query, update] = useListQuery(filters, { url });
  const list = useResource(() => load(query), [query, ...deps], { keepPrevious: true });
  return {
    query,
    update,
    list,
    pages: list.data === undefined ? 1 : Math.max(1, pages(list.data)),
  };
}

interface WindowState<T> {
  key: string;
  total: number | null;
  pages: ReadonlyMap<number, T[]>;
  origin?: DataOrigin | undefined;
  error?: string | undefined;
}

/**
 * The same kind of list drawn as one long virtualised table: pages (1-based, `pageSize` rows) are read as the
 * visible range needs them, and pages far from it (beyond `pagesKept`) are forgotten. A new `key` starts over.
 */
export function usePagedWindow<T>(
  key: string,
  fetchPage: (page: number, size: number) => Promise<Sourced<Paged<T>>>,
  { pageSize, pagesKept }: { pageSize: number; pagesKept: number },
) {
  const [state, setState] = useState<WindowState<T>>({ key, total: null, pages: new Map() });
  const inflight = useRef(new Set<string>());
  const visible = useRef({ first: 0, last: 0 });
  const fetchRef = useRef(fetchPage);
  const keyRef = useRef(key);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    fetchRef.current = fetchPage;
    keyRef.current = key;
  });

  const loadPage = useCallback(
    (forKey: string, page: number) => {
      const id = `${forKey}#${page}`;
      if (inflight.current.has(id)) return;
      inflight.current.add(id);
      const fresh = (s: WindowState<T>): WindowState<T> =>
        s.key === forKey ? s : { key: forKey, total: null, pages: new Map<number, T[]>() };
      fetchRef.current(page, pageSize).then(
        ({ data, origin }) => {
          inflight.current.delete(id);
          if (keyRef.current !== forKey) return;
          setState((s) => {
            const base = fresh(s);
            const pages = new Map(base.pages);
            pages.set(page, Array.isArray(data.results) ? data.results : []);
            // Forget the pages farthest from what is on screen.
            const centre = Math.floor((visible.current.first + visible.current.last) / 2 / pageSize) + 1;
            if (pages.size > pagesKept) {
              const far = [...pages.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
              for (const p of far.slice(0, pages.size - pagesKept)) pages.delete(p);
            }
            const total = typeof data.count === 'number' ? data.count : (base.total ?? pages.get(page)!.length);
            return { key: forKey, total, pages, origin, error: undefined };
          });
        },
        (err: unknown) => {
          inflight.current.delete(id);
          if (keyRef.current !== forKey) return;
          setState((s) => ({ ...fresh(s), error: messageOf(err) }));
        },
      );
    },
    [pageSize, pagesKept],
  );

  // The first page gives the total.
  useEffect(() => {
    loadPage(key, 1);
  }, [key, attempt, loadPage]);

  const current: WindowState<T> = state.key === key ? state : { key, total: null, pages: new Map() };

  /** Called with the visible row range (0-based, inclusive) whenever it changes. */
  const ensureRange = useCallback(
    (first: number, last: number) => {
      visible.current = { first, last };
      if (first > last) return;
      const firstPage = Math.floor(first / pageSize) + 1;
      const lastPage = Math.floor(last / pageSize) + 1;
      for (let p = firstPage; p <= lastPage; p++) {
        if (!current.pages.has(p)) loadPage(key, p);
      }
    },
    [current.pages, key, loadPage, pageSize],
  );

  const rowAt = (index: number): T | undefined =>
    current.pages.get(Math.floor(index / pageSize) + 1)?.[index % pageSize];

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
