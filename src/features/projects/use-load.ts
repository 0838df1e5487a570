import { useEffect, useState } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';

export type LoadState<T> =
  { status: 'loading' } | { status: 'error'; message: string; httpStatus: number } | { status: 'ready'; data: T };

/**
 * Runs `load` whenever `key` changes (or `reload` is called); late answers of an older key are dropped.
 * `update` changes the loaded value in place (after a write), `reload` asks the server again.
 */
export function useLoad<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ key: string; n: number; value: LoadState<T> }>({
    key,
    n: 0,
    value: { status: 'loading' },
  });
  const [n, setN] = useState(0);

  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ key, n, value: { status: 'ready', data } }),
      (err: unknown) =>
        live &&
        setState({
          key,
          n,
          value: { status: 'error', message: messageOf(err), httpStatus: err instanceof ApiError ? err.status : 0 },
        }),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render; `key` names what it loads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, n]);

  // A reload keeps showing the previous data until the new answer arrives (no flash of "Chargement…").
  const value: LoadState<T> = state.key === key ? state.value : { status: 'loading' };
  const update = (fn: (data: T) => T) =>
    setState((s) => (s.value.status === 'ready' ? { ...s, value: { status: 'ready', data: fn(s.value.data) } } : s));
  return { state: value, reload: () => setN((x) => x + 1), update };
}
