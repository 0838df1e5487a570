import { useState, type FormEvent } from 'react';
import { ActionMessages } from './list-state.tsx';
import { DateInput } from './date-input.tsx';

export interface SearchFilterField<K extends string> {
  key: K;
  label: string;
  type?: 'text' | 'search' | 'date';
  /** The label's class (e.g. the wide text field). */
  className?: string;
  maxLength?: number;
  autoComplete?: string;
}

/**
 * A list's text filters, applied together with « Rechercher » (the selects of its toolbar apply at once): each field
 * starts from `initial`, `check` may refuse the whole search with a French message, and the date range must run
 * forwards (`reversedDates` is the message when it does not).
 */
export function SearchFilters<K extends string>({
  label,
  className,
  fields,
  initial,
  reversedDates,
  check,
  onApply,
}: {
  label: string;
  className: string;
  fields: readonly SearchFilterField<K>[];
  initial: Record<K, string>;
  reversedDates: string;
  check?: (values: Record<K, string>) => string | null;
  onApply: (values: Record<K, string>) => void;
}) {
  const [values, setValues] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const dates = values as Partial<Record<'date_from' | 'date_to', string>>;
    const problem =
      check?.(values) ?? (dates.date_from && dates.date_to && dates.date_from > dates.date_to ? reversedDates : null);
    setError(problem);
    if (!problem) onApply(values);
  };
  return (
    <form role="search" className={className} aria-label={label} onSubmit={submit}>
      {fields.map((f) => (
        <label key={f.key} className={f.className}>
          {f.label}
          {f.type === 'date' ? (
            <DateInput
              name={f.key}
              value={values[f.key]}
              onValue={(day) => setValues((v) => ({ ...v, [f.key]: day }))}
            />
          ) : (
            <input
              name={f.key}
              type={f.type ?? 'text'}
              value={values[f.key]}
              maxLength={f.maxLength}
              autoComplete={f.autoComplete}
              onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
            />
          )}
        </label>
      ))}
      <button type="submit" className="btn secondary">
        Rechercher
      </button>
      <ActionMessages error={error} />
    </form>
  );
}
