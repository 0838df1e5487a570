import { useEffect, useState } from 'react';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';

export type LoadState<T> =
  | { status: 'loading' }
  | { status: 'error'; message: string; notFound: boolean }
  | { status: 'ready'; data: T; origin: DataOrigin };

/** Runs `load` whenever `key` changes; late answers of an older key are dropped. */
export function useLoad<T>(load: () => Promise<{ data: T; origin: DataOrigin }>, key: string) {
  const [state, setState] = useState<{ key: string; value: LoadState<T> }>({ key, value: { status: 'loading' } });
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    load().then(
      ({ data, origin }) => live && setState({ key, value: { status: 'ready', data, origin } }),
      (err: unknown) =>
        live &&
        setState({
          key,
          value: {
            status: 'error',
            message: messageOf(err),
            notFound: err instanceof ApiError && err.status === 404,
          },
        }),
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure each render; `key` names what it loads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, reload]);

  const value: LoadState<T> = state.key === key ? state.value : { status: 'loading' };
  const update = (data: T) =>
    setState((s) => (s.value.status === 'ready' ? { key: s.key, value: { ...s.value, data } } : s));
  return { state: value, retry: () => setReload((n) => n + 1), update };
}
