import type { ReactNode } from 'react';

/** The outcome of the last action on a screen: a success notice and/or an error. */
export function ActionMessages({ notice, error }: { notice?: string | null; error?: string | null }) {
  return (
    <>
      {notice && (
        <p className="vm-success" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

/** While data loads: the failure (prefixed by `failure`) or, until something arrived, a loading status. */
export function LoadStatus({
  loaded,
  error,
  failure,
  loading = 'Chargement…',
}: {
  loaded: boolean;
  error: string | null;
  /** e.g. "Impossible de charger les actifs", followed by " : " and the error. */
  failure: string;
  loading?: string;
}) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {failure} : {error}
        </p>
      )}
      {!loaded && !error && <p role="status">{loading}</p>}
    </>
  );
}

/**
 * A read's state, the other way round: `loading` while `pending`, then the failure (prefixed by `failure`, followed by
 * " : " and the error) whenever there is one.
 */
export function ReadStatus({
  pending,
  loading,
  error,
  failure,
}: {
  pending: boolean;
  loading: string;
  error: string | null | undefined;
  /** e.g. "Impossible de charger les journaux". */
  failure: string;
}) {
  return (
    <>
      {pending && <p role="status">{loading}</p>}
      {error && (
        <p className="error" role="alert">
          {failure} : {error}
        </p>
      )}
    </>
  );
}

/** The card shown in place of an empty table. */
export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="vm-empty card">{children}</p>;
}

/** A failed load with its French message and, when it may work another time, a « Réessayer » button. */
export function RetryError({
  message,
  onRetry,
  className,
}: {
  message: string;
  onRetry?: (() => void) | undefined;
  className: string;
}) {
  return (
    <div className={className}>
      <p className="error" role="alert">
        {message}
      </p>
      {onRetry && (
        <button type="button" className="btn secondary" onClick={onRetry}>
          Réessayer
        </button>
      )}
    </div>
  );
}
