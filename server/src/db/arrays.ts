/**
 * A PostgreSQL array literal of `values`, passed as ONE query parameter and cast where used
 * (`${pgArray(ids)}::bigint[]`, `unnest(${pgArray(texts)}::text[])`): a list of any length costs one parameter and no
 * per-value work in the query builder. Strings are quoted with their backslashes and quotes escaped; null and
 * undefined are NULL.
 */
export function pgArray(values: readonly (string | number | null | undefined)[]): string {
  const element = (v: string | number | null | undefined) =>
    v === null || v === undefined
      ? 'NULL'
      : typeof v === 'number'
        ? String(v)
        : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  return `{${values.map(element).join(',')}}`;
}
