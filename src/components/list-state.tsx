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
