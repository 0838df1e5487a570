import { useEffect, useRef, useState, type ReactNode } from 'react';

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
  const [wrapRef, scrolls] = useScrollsSideways();
  // A frame that scrolls must be reachable by keyboard (WCAG 2.1.1): focusable and named while it scrolls.
  const focusable = region !== undefined || scrolls;
  return (
    <div
      ref={wrapRef}
      className={wrapClassName ? `table-wrap ${wrapClassName}` : 'table-wrap'}
      {...(focusable ? { role: 'region', tabIndex: 0, 'aria-label': region ?? 'Tableau (défilement horizontal)' } : {})}
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

/** Whether the frame's content scrolls sideways, kept up to date as the frame or its table change size. */
function useScrollsSideways() {
  const ref = useRef<HTMLDivElement>(null);
  const [value, setValue] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setValue(el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return [ref, value] as const;
}
