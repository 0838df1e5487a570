import { Select, type Options } from './select.tsx';

/** A labelled select of a list's toolbar; `allLabel` adds a first, empty choice ("Tous", "Toutes"). */
export function FilterSelect({
  label,
  value,
  options,
  allLabel,
  onChange,
}: {
  label: string;
  value: string | number;
  /** [value, text] pairs, in display order. */
  options: Options;
  allLabel?: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <Select value={value} options={options} empty={allLabel} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}
