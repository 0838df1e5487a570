/** The CVE store's search (/api/vulnerabilities/es/): its querystring, reply and checks, in French. */
import { ApiError } from '../domain/errors.ts';
import { charCount, clipText } from '../../../contract/text.ts';
import { CveHitSchema } from '../presenters/cve.ts';
import { Type } from './common.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, positiveInt, type RawQuery, pageWindow } from './query.ts';

const MAX_QUERY = 200;
const MAX_PAGE = 10_000;

export const SearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Identifiant, mots du titre, de la description ou CWE' }),
    ),
    page: Type.Optional(Type.String({ maxLength: 12, description: `Numéro de page (1 à ${MAX_PAGE})` })),
    page_size: Type.Optional(Type.String({ maxLength: 12, description: `Taille de page (au plus ${MAX_PAGE_SIZE})` })),
  },
  { additionalProperties: true },
);
export const SearchReply = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  results: Type.Array(CveHitSchema),
  took_ms: Type.Number({ description: 'Durée de la recherche, en millisecondes' }),
});
export const CveParams = Type.Object({ cveId: Type.String({ maxLength: 64, description: 'CVE-AAAA-NNNN' }) });

const invalidSearch = (field: string, message: string) =>
  new ApiError(400, 'invalid', 'Paramètres de recherche invalides.', { fields: { [field]: [message] } });

/** A positive integer up to `max`, `fallback` when absent. */
function bounded(raw: string | undefined, field: string, fallback: number, max: number): number {
  const n = positiveInt(raw);
  if (n === null || (n !== undefined && n > max)) throw invalidSearch(field, `Entier entre 1 et ${max} attendu.`);
  return n ?? fallback;
}

/** The search text (spaces folded, at least 2 characters) and the page asked for. */
export function readSearch(query: RawQuery) {
  const text = clipText((query.q ?? '').replace(/\s+/g, ' ').trim(), MAX_QUERY);
  if (charCount(text) < 2) {
    const message = 'Saisissez au moins 2 caractères.';
    throw new ApiError(400, 'invalid', message, { fields: { q: [message] } });
  }
  const page = bounded(query.page, 'page', 1, MAX_PAGE);
  const pageSize = bounded(query.page_size, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { text, ...pageWindow({ page, pageSize }) };
}
