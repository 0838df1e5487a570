/**
 * The TypeBox pieces every route schema is built from. A route declares its params, query, body and replies with
 * these; the OpenAPI document (/api/openapi.json) is generated from the same objects, so it cannot drift.
 */
import { Type, type TSchema } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../../contract/paged.ts';

export { Type };
export type { Static, TSchema } from 'typebox';

/** Database ids: positive integers. A path id that does not match is « not found » (see validation-messages). */
export const ID_PATTERN = '^[1-9][0-9]{0,15}$';

/** `/:id` path parameters. */
export const IdParams = Type.Object({ id: Type.String({ pattern: ID_PATTERN, description: 'Identifiant' }) });

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The one error shape of the API: `{detail, code, fields?}`. */
export const ErrorReply = Type.Object(
  {
    detail: Type.String({ description: 'Message en français, affichable tel quel' }),
    code: Type.String({ description: 'Code stable, lisible par un programme' }),
    fields: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { $id: 'ErrorReply', title: 'Erreur' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Requête invalide (détail et champs en français)',
  401: 'Non authentifié',
  403: 'Accès refusé',
  404: 'Introuvable',
  409: 'Conflit',
  413: 'Trop volumineux',
  415: 'Type de contenu non pris en charge',
  423: 'Compte verrouillé',
  429: 'Trop de requêtes',
  503: 'Service indisponible',
};

/** An error reply for the document: the shared shape under the status's description. */
export const errorReply = (status: number) =>
  Type.Ref('ErrorReply', { description: ERROR_DESCRIPTIONS[status] ?? 'Erreur' }) as unknown as TSchema;

/**
 * A route's replies: its success schemas, plus the error statuses it may answer (400, 401 and 403 are added to
 * every authenticated route by `replies.signedIn`).
 */
const SUCCESS_DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Créé', 202: 'Accepté', 204: 'Aucun contenu' };

export function replies(success: Record<number, TSchema>, ...errors: number[]) {
  const out: Record<number, TSchema> = {};
  // The document shows a reply's description: the schema's own, else what the status means.
  for (const [status, schema] of Object.entries(success)) {
    out[Number(status)] =
      typeof (schema as { description?: unknown }).description === 'string'
        ? schema
        : { ...schema, description: SUCCESS_DESCRIPTIONS[Number(status)] ?? 'Réponse' };
  }
  for (const status of errors) out[status] = errorReply(status);
  return out;
}
replies.signedIn = (success: Record<number, TSchema>, ...errors: number[]) => replies(success, 401, 403, ...errors);

/** 204: nothing in the body. */
export const NoContent = Type.Null({ description: 'Aucun contenu' });

/** A free-form JSON object (settings, meta) whose keys the route documents in prose. */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());

/** `{count, next, previous, results}`: every paged list (contract/paged.ts). */
export const Paged = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer({ minimum: 0 }),
    next: Nullable(Type.String()),
    previous: Nullable(Type.String()),
    results: Type.Array(item),
  });

/** A query parameter as it arrives: a string (ajv does not coerce). Checked by the route with a French message. */
export const QueryText = (description: string) => Type.Optional(Type.String({ maxLength: 1000, description }));

/** The paging parameters every list accepts. */
export const PagingQueryFields = {
  page: QueryText('Numéro de page, à partir de 1'),
  page_size: QueryText(`Taille de page (défaut ${DEFAULT_PAGE_SIZE}, au plus ${MAX_PAGE_SIZE})`),
};

type QueryField = ReturnType<typeof QueryText>;

/**
 * A list's querystring: paging plus the named filters, each a string. Unknown keys are accepted (clients add
 * cache-busting parameters), as before.
 */
export function ListQuery<K extends string>(filters: Record<K, string>) {
  const fields = Object.fromEntries(
    Object.entries<string>(filters).map(([key, description]) => [key, QueryText(description)]),
  ) as Record<K, QueryField>;
  return Type.Object({ ...PagingQueryFields, ...fields }, { additionalProperties: true });
}

/** A querystring of named string filters, without paging. */
export function FilterQuery<K extends string>(filters: Record<K, string>) {
  const fields = Object.fromEntries(
    Object.entries<string>(filters).map(([key, description]) => [key, QueryText(description)]),
  ) as Record<K, QueryField>;
  return Type.Object(fields, { additionalProperties: true });
}

/** One of a fixed list of strings (an enum of contract/), typed as the list's union. */
export const Choice = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/**
 * A value of JSON `type` or null, as one type list (not Nullable's anyOf), so a refusal carries the field's one
 * message rather than one per branch.
 */
export const OrNull = <T>(type: 'string' | 'integer' | 'number', options: Record<string, unknown> = {}) =>
  Type.Unsafe<T | null>({ type: [type, 'null'], ...options });

/**
 * A write body: the writable fields, checked, and the other fields of the resource's reply schema accepted and
 * ignored (a client may send back an object it read). Any other key is refused.
 */
export function WriteBody<W extends Record<string, TSchema>>(reply: { properties: object }, writable: W) {
  const ignored = Type.Optional(Type.Unknown({ description: 'Lecture seule : ignoré' }));
  const properties: Record<string, TSchema> = { ...writable };
  for (const key of Object.keys(reply.properties)) properties[key] ??= ignored;
  return Type.Object(properties as W, { additionalProperties: false });
}
