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
  options: readonly (readonly [string | number, string])[];
  allLabel?: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {allLabel !== undefined && <option value="">{allLabel}</option>}
        {options.map(([optionValue, text]) => (
          <option key={optionValue} value={optionValue}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
