import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, type DataOrigin } from './api-client.ts';
import { messageOf } from './error-message.ts';

/**
 * What a loader resolves to: the data and, when it came through the API client (`apiRequestWithOrigin`), where it
 * came from. A loader that answers a fallback instead of failing (an empty list, a kept copy) says why in `error`.
 */
export interface Sourced<T> {
  data: T;
  origin?: DataOrigin | undefined;
  error?: string | null | undefined;
}

export type ResourceState<T> =
  | { status: 'loading' }
  /** `httpStatus` 0: no answer (or no HTTP error at all). */
  | { status: 'error'; message: string; httpStatus: number }
  | { status: 'ready'; data: T; origin: DataOrigin | undefined; error: string | null };

export interface Resource<T> {
  /** This key's state. */
  state: ResourceState<T>;
  /** The data to show: this key's, or with `keepPrevious` the last one loaded while the next loads or failed. */
  data: T | undefined;
  origin: DataOrigin | undefined;
  /** The French message of a failed load, or of a loader's fallback answer. */
  error: string | null;
  /** True until this key's first answer. */
  loading: boolean;
  /** Loads the same key again; what is shown stays until the answer. Resolves once it is in. */
  refresh: () => Promise<void>;
  /** Changes the loaded data in place (after a write the screen applied itself). */
  update: (change: (data: T) => T) => void;
}

interface Stored<T> {
  key: string;
  state: ResourceState<T>;
  /** The last ready state, whatever its key. */
  last: Extract<ResourceState<T>, { status: 'ready' }> | undefined;
}

const LOADING = { status: 'loading' } as const;

/**
 * The one way a screen reads data: runs `load` whenever `deps` change (a late answer for older deps is dropped),
 * keeps where the data came from, and turns a failure into its French message (`messageOf`).
 */
export function useResource<T>(
  load: () => Promise<Sourced<T>>,
  deps: readonly unknown[],
  { keepPrevious = false }: { keepPrevious?: boolean } = {},
): Resource<T> {
  const key = JSON.stringify(deps);
  const [stored, setStored] = useState<Stored<T>>({ key, state: LOADING, last: undefined });
  const loadRef = useRef(load);
  const seq = useRef(0);
  useEffect(() => {
    loadRef.current = load;
  });

  const run = useCallback((forKey: string): Promise<void> => {
    const mine = ++seq.current;
    return loadRef.current().then(
      ({ data, origin, error }) => {
        if (mine !== seq.current) return;
        const ready = { status: 'ready', data, origin, error: error ?? null } as const;
        // A transition: a big screen's render is split into short tasks, so input is never blocked for long.
        startTransition(() => setStored({ key: forKey, state: ready, last: ready }));
      },
      (err: unknown) => {
        if (mine !== seq.current) return;
        const failed = {
          status: 'error',
          message: messageOf(err),
          httpStatus: err instanceof ApiError ? err.status : 0,
        } as const;
        setStored((s) => ({ key: forKey, state: failed, last: s.last }));
      },
    );
  }, []);

  useEffect(() => {
    void run(key);
  }, [key, run]);

  const state: ResourceState<T> = stored.key === key ? stored.state : LOADING;
  const shown = state.status === 'ready' ? state : keepPrevious ? stored.last : undefined;
  return {
    state,
    data: shown?.data,
    origin: shown?.origin,
    error: state.status === 'error' ? state.message : state.status === 'ready' ? state.error : null,
    loading: state.status === 'loading',
    refresh: () => run(key),
    update: (change) =>
      setStored((s) => {
        if (s.state.status !== 'ready') return s;
        const ready = { ...s.state, data: change(s.state.data) };
        return { ...s, state: ready, last: ready };
      }),
  };
}
