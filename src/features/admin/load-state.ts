import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';

export type Loaded<T> =
  { kind: 'loading' } | { kind: 'ok'; data: T } | { kind: 'failed'; error: string; forbidden: boolean };

/** Loads once per `key` change; a failure keeps the French message and whether the server refused. */
export function useLoaded<T>(load: () => Promise<T>, key: unknown = 0): Loaded<T> {
  const [state, setState] = useState<{ key: unknown; value: Loaded<T> }>({ key, value: { kind: 'loading' } });
  const loadRef = useRef(load);
  useEffect(() => {
    loadRef.current = load;
  });
  useEffect(() => {
    let live = true;
    loadRef.current().then(
      (data) => live && setState({ key, value: { kind: 'ok', data } }),
      (err: unknown) =>
        live &&
        setState({
          key,
          value: { kind: 'failed', error: messageOf(err), forbidden: err instanceof ApiError && err.status === 403 },
        }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? state.value : { kind: 'loading' };
}
