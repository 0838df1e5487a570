import { useId, useState, type ReactNode } from 'react';

/**
 * A row that opens a details row under it: `toggle` is its button (« Afficher » / « Masquer », named after the
 * row, `aria-expanded` and `aria-controls` set), `details` the row to put after it while open.
 */
export function useRowDetails(what: string, name: string, colSpan: number) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const toggle = (
    <button
      type="button"
      className="btn secondary small"
      data-action="details"
      aria-expanded={open}
      aria-controls={open ? id : undefined}
      aria-label={`${what} : ${name}`}
      onClick={() => setOpen((o) => !o)}
    >
      {open ? 'Masquer' : 'Afficher'}
    </button>
  );
  const details = (children: ReactNode) =>
    open ? (
      <tr className="pj-details-row">
        <td colSpan={colSpan}>
          <section id={id} className="pj-details" aria-label={`${what} : ${name}`}>
            {children}
          </section>
        </td>
      </tr>
    ) : null;
  return { open, toggle, details };
}
