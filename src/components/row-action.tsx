/** A small button acting on one row; its accessible name is "<text> : <row name>". */
export function RowAction({
  action,
  text,
  name,
  disabled,
  onClick,
}: {
  /** Its `data-action`, e.g. "edit". */
  action: string;
  text: string;
  name: string;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className="btn secondary small"
      data-action={action}
      disabled={disabled}
      aria-label={`${text} : ${name}`}
      onClick={onClick}
    >
      {text}
    </button>
  );
}
