import type { ReactNode } from 'react';
import { FilterSelect } from './filter-select.tsx';
import type { Options } from './select.tsx';

/** One select of a filter bar: the value it sets, its label, its choices and, when given, its empty choice. */
export interface FilterSpec<K extends string = string> {
  key: K;
  label: string;
  options: Options;
  /** The first, empty choice (« Tous », « Toutes »); none when absent. */
  allLabel?: string;
}

/** A list's toolbar of filter selects (each one applies at once), then its other controls (`children`). */
export function FilterBar<K extends string>({
  label,
  role = 'group',
  className = 'vm-toolbar',
  filters,
  values,
  onChange,
  children,
}: {
  /** The toolbar's accessible name, e.g. « Filtrer les actifs ». */
  label: string;
  role?: 'group' | 'search';
  className?: string;
  filters: readonly FilterSpec<K>[];
  values: Readonly<Record<K, string | number>>;
  onChange: (key: K, value: string) => void;
  children?: ReactNode;
}) {
  return (
    <div className={className} role={role} aria-label={label}>
      {filters.map((f) => (
        <FilterSelect
          key={f.key}
          label={f.label}
          value={values[f.key]}
          options={f.options}
          {...(f.allLabel !== undefined ? { allLabel: f.allLabel } : {})}
          onChange={(value) => onChange(f.key, value)}
        />
      ))}
      {children}
    </div>
  );
}
