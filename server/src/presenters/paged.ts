import type { RawQuery } from '../schemas/query.ts';

/**
 * {count, next, previous, results} with relative links that keep the query's own parameters: those the route's
 * query schema declares (or these keys).
 */
export function pagedResponse<T>(
  path: string,
  query: RawQuery,
  accepted: { properties: object } | readonly string[],
  paging: { page: number; pageSize: number },
  count: number,
  results: T[],
) {
  const keys: readonly string[] = 'properties' in accepted ? Object.keys(accepted.properties) : accepted;
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const k of keys) {
      const v = query[k];
      if (k !== 'page' && v !== undefined && v !== '') params.set(k, v);
    }
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const lastPage = Math.max(1, Math.ceil(count / paging.pageSize));
  return {
    count,
    next: paging.page < lastPage ? link(paging.page + 1) : null,
    previous: paging.page > 1 ? link(Math.min(paging.page - 1, lastPage)) : null,
    results,
  };
}
