/** Shared with the server-log route, which still imports it from here: the reader is schemas/query.ts. */
export { parseDateRange } from '../../../schemas/query.ts';
