/**
 * A fieldset of checkboxes choosing several values of one filter (`name` in the form, `legend` read aloud): ticked
 * where `checked` holds the value. `onChange` receives the values still or newly ticked; the caller keeps them in
 * its own order.
 */
export function CheckGroup<T extends string>({
  legend,
  name,
  options,
  checked,
  onChange,
}: {
  legend: string;
  name: string;
  /** Each value and its label, in the order shown. */
  options: readonly (readonly [T, string])[];
  checked: readonly T[];
  onChange: (next: T[]) => void;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <div className="checks">
        {options.map(([value, label]) => (
          <label key={value}>
            <input
              type="checkbox"
              name={name}
              value={value}
              checked={checked.includes(value)}
              onChange={(e) => onChange(e.target.checked ? [...checked, value] : checked.filter((x) => x !== value))}
            />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
