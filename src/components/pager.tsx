const NUMBER = new Intl.NumberFormat('fr-FR');

/** Previous / next buttons under a paged list; nothing when everything fits on one page. */
export function Pager({
  label,
  page,
  pages,
  onPage,
}: {
  /** Accessible name of the navigation, e.g. "Pages des actifs". */
  label: string;
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <nav className="vm-pager" aria-label={label}>
      <button type="button" className="btn secondary small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Précédente
      </button>
      <span>
        Page {NUMBER.format(page)} sur {NUMBER.format(pages)}
      </span>
      <button type="button" className="btn secondary small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Suivante
      </button>
    </nav>
  );
}
