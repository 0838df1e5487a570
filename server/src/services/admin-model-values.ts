import { getTableConfig } from 'drizzle-orm/pg-core';
import { FieldErrors } from '../domain/errors.ts';
import { charCount } from '../../../contract/text.ts';
import { isUuid } from '../schemas/admin/common.ts';
import type { AdminModel, ModelField } from './admin-models.ts';

/** French messages of the model administration (docs/api-admin.md "Models"). */
export const MODEL_MESSAGES = {
  notObject: 'Un objet JSON décrivant l’élément est attendu.',
  unknown: (name: string) => `Champ inconnu : « ${name} ».`,
  readOnly: (name: string) => `Champ en lecture seule : « ${name} ».`,
  required: 'Ce champ est obligatoire.',
  notNull: (name: string) => `« ${name} » ne peut pas être nul.`,
  text: (name: string) => `« ${name} » doit être un texte.`,
  // PostgreSQL stores no NUL character in text.
  nul: (name: string) => `« ${name} » contient un caractère nul (\\u0000), refusé.`,
  tooLong: (name: string, max: number) => `« ${name} » ne doit pas dépasser ${max} caractères.`,
  integer: (name: string) => `« ${name} » doit être un entier.`,
  integerRange: (name: string, min?: number, max?: number) =>
    min !== undefined && max !== undefined
      ? `« ${name} » doit être un entier entre ${min} et ${max}.`
      : min !== undefined
        ? `« ${name} » doit être un entier supérieur ou égal à ${min}.`
        : `« ${name} » doit être un entier inférieur ou égal à ${max}.`,
  outOfRange: (name: string) => `« ${name} » est hors des limites acceptées.`,
  number: (name: string) => `« ${name} » doit être un nombre.`,
  boolean: (name: string) => `« ${name} » doit être vrai ou faux.`,
  datetime: (name: string) =>
    `« ${name} » doit être une date et heure ISO 8601 avec fuseau (par exemple 2026-05-04T09:12:00Z).`,
  date: (name: string) => `« ${name} » doit être une date (AAAA-MM-JJ).`,
  uuid: (name: string) => `« ${name} » doit être un identifiant UUID.`,
  choice: (name: string, choices: readonly string[]) => `« ${name} » doit valoir ${choices.join(', ')}.`,
  array: (name: string, items: number, length: number) =>
    `« ${name} » doit être une liste d’au plus ${items} textes de ${length} caractères au plus.`,
  json: (name: string) => `« ${name} » doit être une valeur JSON de moins de 100 000 caractères.`,
  reference: (name: string, id: unknown, label: string) =>
    `« ${name} » : aucun élément n° ${String(id)} parmi « ${label} » dans cette organisation.`,
  duplicate: 'Un élément avec cette valeur existe déjà.',
  duplicateField: 'Cette valeur est déjà utilisée.',
  foreignKey: 'Référence invalide : l’élément lié n’existe pas.',
  stillReferenced: 'Suppression impossible : d’autres éléments font référence à cet élément.',
  constraint: 'Valeur refusée par une règle de la base de données.',
  invalidValue: 'Valeur invalide.',
} as const;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
// An offset is required: a time without one would be read in the server's zone.
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const MAX_JSON = 100_000;

function isCalendarDate(raw: string): boolean {
  const m = DATE_RE.exec(raw);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && y >= 1;
}

const INVALID = Symbol('invalid');

function isTextList(raw: unknown): raw is string[] {
  return Array.isArray(raw) && raw.every((v) => typeof v === 'string' && !v.includes('\u0000'));
}

/** One value, checked and converted for its column; INVALID after adding the French message. */
function convert(field: ModelField, raw: unknown, errors: FieldErrors): unknown {
  const name = field.name;
  const fail = (message: string) => {
    errors.add(name, message);
    return INVALID;
  };
  if (raw === null)
    return field.nullable ? null : fail(field.required ? MODEL_MESSAGES.required : MODEL_MESSAGES.notNull(name));
  switch (field.type) {
    case 'string':
    case 'text': {
      if (typeof raw !== 'string') return fail(MODEL_MESSAGES.text(name));
      if (raw.includes('\u0000')) return fail(MODEL_MESSAGES.nul(name));
      let value = raw.trim();
      if (value === '') {
        if (field.nullable) return null;
        return field.required ? fail(MODEL_MESSAGES.required) : '';
      }
      if (field.normalize) value = field.normalize(value);
      if (charCount(value) > field.maxLength!) return fail(MODEL_MESSAGES.tooLong(name, field.maxLength!));
      const problem = field.check?.(value);
      return problem ? fail(problem) : value;
    }
    case 'enum':
      return typeof raw === 'string' && field.choices!.includes(raw.trim())
        ? raw.trim()
        : fail(MODEL_MESSAGES.choice(name, field.choices!));
    case 'integer': {
      if (typeof raw !== 'number' || !Number.isInteger(raw)) return fail(MODEL_MESSAGES.integer(name));
      if ((field.min !== undefined && raw < field.min) || (field.max !== undefined && raw > field.max)) {
        const { min, max } = field.declared;
        const declared = (min !== undefined && raw < min) || (max !== undefined && raw > max);
        return fail(declared ? MODEL_MESSAGES.integerRange(name, min, max) : MODEL_MESSAGES.outOfRange(name));
      }
      return raw;
    }
    case 'number':
      if (typeof raw !== 'number' || !Number.isFinite(raw)) return fail(MODEL_MESSAGES.number(name));
      if ((field.min !== undefined && raw < field.min) || (field.max !== undefined && raw > field.max)) {
        return fail(MODEL_MESSAGES.outOfRange(name));
      }
      return raw;
    case 'boolean':
      return typeof raw === 'boolean' ? raw : fail(MODEL_MESSAGES.boolean(name));
    case 'datetime': {
      if (typeof raw !== 'string' || !DATETIME_RE.test(raw.trim()) || !isCalendarDate(raw.trim().slice(0, 10))) {
        return fail(MODEL_MESSAGES.datetime(name));
      }
      const date = new Date(raw.trim());
      return Number.isNaN(date.getTime()) ? fail(MODEL_MESSAGES.datetime(name)) : date;
    }
    case 'date':
      return typeof raw === 'string' && isCalendarDate(raw.trim()) ? raw.trim() : fail(MODEL_MESSAGES.date(name));
    case 'uuid':
      return typeof raw === 'string' && isUuid(raw.trim()) ? raw.trim().toLowerCase() : fail(MODEL_MESSAGES.uuid(name));
    case 'array': {
      const items = isTextList(raw) ? raw : undefined;
      const values = items ? [...new Set(items.map((v) => v.trim()).filter((v) => v !== ''))] : undefined;
      if (!values || values.length > field.maxItems! || values.some((v) => charCount(v) > field.maxLength!)) {
        return fail(MODEL_MESSAGES.array(name, field.maxItems!, field.maxLength!));
      }
      return values;
    }
    case 'json': {
      const text = JSON.stringify(raw);
      return text !== undefined && charCount(text) <= MAX_JSON ? raw : fail(MODEL_MESSAGES.json(name));
    }
  }
}

/**
 * Checks a body against the model's allow-list: unknown and read-only fields are refused, each value is checked
 * for its type, and on creation every required field must be there. Values come back keyed by Drizzle property.
 * Throws 400 {detail, code: 'invalid', fields} with French messages.
 */
export function parseModelBody(
  model: AdminModel,
  body: unknown,
  mode: 'create' | 'update',
): { values: Record<string, unknown>; given: ModelField[] } {
  const errors = new FieldErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add('non_field_errors', MODEL_MESSAGES.notObject);
    errors.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  const values: Record<string, unknown> = {};
  const given: ModelField[] = [];
  for (const [name, raw] of Object.entries(input)) {
    const field = model.byName.get(name);
    if (!field) errors.add(name, MODEL_MESSAGES.unknown(name));
    else if (field.readOnly || (mode === 'update' && field.createOnly)) errors.add(name, MODEL_MESSAGES.readOnly(name));
    else if (raw !== undefined) {
      const value = convert(field, raw, errors);
      if (value !== INVALID) {
        values[field.key] = value;
        given.push(field);
      }
    }
  }
  if (mode === 'create') {
    for (const field of model.fields) {
      if (field.required && !(field.name in input)) errors.add(field.name, MODEL_MESSAGES.required);
    }
  }
  errors.throwIfAny();
  return { values, given };
}

/** A value as it leaves the server (and as two values are compared): dates as ISO text, 64-bit integers as text. */
export function outgoingValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(outgoingValue(a)) === JSON.stringify(outgoingValue(b));
}

export type DbProblem =
  | { kind: 'unique'; fields: string[] }
  | { kind: 'foreign_key'; fields: string[] }
  | { kind: 'check'; fields: string[] }
  | { kind: 'not_null'; fields: string[] }
  | { kind: 'invalid' };

/**
 * The database's refusal of a write, when the input caused it (a unique value taken, a missing reference, a
 * check): named by the model's API fields through Drizzle's constraint metadata. Anything else is not ours.
 */
export function dbProblem(model: AdminModel, err: unknown): DbProblem | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint, column } = e as { code?: unknown; constraint?: unknown; column?: unknown };
    if (typeof code !== 'string' || !/^(23|22)/.test(code)) continue;
    const fields = constraintFields(model, typeof constraint === 'string' ? constraint : '');
    if (code === '23505') return { kind: 'unique', fields };
    if (code === '23503') return { kind: 'foreign_key', fields };
    if (code === '23514') return { kind: 'check', fields };
    if (code === '23502') {
      const field = typeof column === 'string' ? model.byName.get(column) : undefined;
      return { kind: 'not_null', fields: field ? [field.name] : [] };
    }
    if (code.startsWith('22')) return { kind: 'invalid' };
  }
  return undefined;
}

/** The API fields a constraint covers (the tenant column left out: the caller never sets it). */
function constraintFields(model: AdminModel, name: string): string[] {
  if (name === '') return [];
  const config = getTableConfig(model.table);
  const columns: string[] = [];
  for (const c of Object.values(config.columns)) {
    if ((c as { uniqueName?: string }).uniqueName === name) columns.push(c.name);
  }
  for (const i of config.indexes) {
    if (i.config.name === name) {
      for (const c of i.config.columns) if ('name' in c && typeof c.name === 'string') columns.push(c.name);
    }
  }
  for (const u of config.uniqueConstraints) if (u.getName() === name) columns.push(...u.columns.map((c) => c.name));
  for (const f of config.foreignKeys)
    if (f.getName() === name) columns.push(...f.reference().columns.map((c) => c.name));
  for (const c of config.checks) {
    // Checks name their column after the table (blog_posts_slug): the field is the suffix.
    if (c.name === name) columns.push(...model.fields.filter((f) => name.endsWith(`_${f.name}`)).map((f) => f.name));
  }
  return columns.filter((c) => c !== 'tenant_id' && model.byName.has(c));
}
