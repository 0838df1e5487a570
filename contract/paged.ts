/** Every list the API pages: `{count, next, previous, results}` with relative next/previous links. */
export interface Paged<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Page size bounds shared by the server's check and the client's pickers. */
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 500;
