import type { ReactNode } from 'react';

/**
 * A list's table: its scrolling wrapper, optional caption, one column header per entry of `headers` (false ones
 * are left out, for columns shown on a condition) and « Actions » last when `actions`; `children` are the rows.
 */
export function DataTable({
  headers,
  actions = false,
  caption,
  captionClass = 'visually-hidden',
  className,
  region,
  wrapClassName,
  after,
  children,
}: {
  headers: readonly ReactNode[];
  actions?: boolean;
  caption?: ReactNode;
  /** The caption's class: hidden by default (a caption for screen readers). */
  captionClass?: string | undefined;
  /** More classes on the table, after `table`. */
  className?: string | undefined;
  /** The accessible name of a focusable scrolling region around a wide table. */
  region?: string | undefined;
  /** More classes on the scrolling wrapper, after `table-wrap`. */
  wrapClassName?: string | undefined;
  /** Shown under the table, inside its wrapper (e.g. « 100 risques affichés sur 120 »). */
  after?: ReactNode;
  children: ReactNode;
}) {
  const shown = headers.filter((h) => h !== false && h !== null && h !== undefined && h !== '');
  return (
    <div
      className={wrapClassName ? `table-wrap ${wrapClassName}` : 'table-wrap'}
      {...(region ? { role: 'region', tabIndex: 0, 'aria-label': region } : {})}
    >
      <table className={className ? `table ${className}` : 'table'}>
        {caption !== undefined && caption !== null && caption !== false && (
          <caption className={captionClass || undefined}>{caption}</caption>
        )}
        <thead>
          <tr>
            {shown.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
            {actions && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {after}
    </div>
  );
}
