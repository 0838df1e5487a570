import type { ReactNode, SelectHTMLAttributes } from 'react';

/** [value, text] pairs, in display order. */
export type Options = readonly (readonly [string | number, ReactNode])[];

/** A select of `options` (and a first, empty choice when `empty` is given, e.g. « Tous »). */
export function Select({
  options,
  empty,
  ...props
}: SelectHTMLAttributes<HTMLSelectElement> & { options: Options; empty?: ReactNode }) {
  return (
    <select {...props}>
      {empty !== undefined && <option value="">{empty}</option>}
      {options.map(([value, text]) => (
        <option key={value} value={value}>
          {text}
        </option>
      ))}
    </select>
  );
}

/** The options of a label map, in the order of `values` (or the map's own order); a value without label shows as is. */
export function optionsOf<K extends string | number>(
  labels: Readonly<Partial<Record<K, string>>>,
  values: readonly K[] = Object.keys(labels) as K[],
): Options {
  return values.map((v) => [v, labels[v] ?? String(v)] as const);
}
