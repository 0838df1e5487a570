import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { Id } from './project-types.ts';

/**
 * The details of one row of a list (an asset's findings and threats, a risk's plan), one row at a time, shown in a
 * panel under the table rather than in it: a table that scrolls sideways would cut a row spanning it. `toggle` is a
 * row's button (« Afficher » / « Masquer », named `Afficher : {what} « {name} »` so that its name holds its text,
 * with `aria-expanded` and `aria-controls`); `panel` is the open row's panel, titled `{what} « {name} »`, which takes
 * the focus when it opens and gives it back to the row's button when it is closed.
 */
export function useRowDetails(what: string) {
  const base = useId();
  const [open, setOpen] = useState<string | null>(null);
  const panelId = `${base}-panel`;
  const toggleId = (key: Id) => `${base}-toggle-${String(key)}`;
  const close = () => {
    const key = open;
    setOpen(null);
    if (key !== null) document.getElementById(toggleId(key))?.focus();
  };

  const toggle = (key: Id, name: string) => {
    const expanded = open === String(key);
    const verb = expanded ? 'Masquer' : 'Afficher';
    return (
      <button
        type="button"
        id={toggleId(key)}
        className="btn secondary small"
        data-action="details"
        aria-expanded={expanded}
        aria-controls={expanded ? panelId : undefined}
        aria-label={`${verb} : ${what} « ${name} »`}
        onClick={() => setOpen(expanded ? null : String(key))}
      >
        {verb}
      </button>
    );
  };

  const panel = (key: Id, name: string, children: ReactNode) =>
    open === String(key) ? (
      <DetailsPanel key={String(key)} id={panelId} title={`${what} « ${name} »`} onClose={close}>
        {children}
      </DetailsPanel>
    ) : null;

  return { open, toggle, panel };
}

function DetailsPanel({
  id,
  title,
  onClose,
  children,
}: {
  id: string;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section id={id} className="card pj-details" aria-labelledby={`${id}-h`}>
      <div className="vm-head">
        <h4 id={`${id}-h`} ref={heading} tabIndex={-1}>
          {title}
        </h4>
        <button type="button" className="btn secondary small" onClick={onClose}>
          Fermer
        </button>
      </div>
      {children}
    </section>
  );
}
