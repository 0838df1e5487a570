import { charCount } from '../../../contract/text.ts';
import type { AdminModel, ModelField, ModelRow } from './models-api.ts';
import { formatDate, formatDateTime, NUMBER } from './format.ts';

/**
 * Form values of the generic model editor and back: each field type has its control and its checks (the server's
 * own, so most mistakes are caught before sending; the server's `fields` messages cover the rest).
 */

export type FieldDraft = string | boolean;

export function writableFields(model: AdminModel, creating: boolean): ModelField[] {
  return model.fields.filter((f) => !f.read_only && (creating || !f.create_only));
}

export function draftValue(field: ModelField, value: unknown): FieldDraft {
  if (field.type === 'boolean') return value === true;
  if (value === null || value === undefined) return '';
  if (field.type === 'array') return Array.isArray(value) ? value.map(String).join('\n') : '';
  if (field.type === 'json') return JSON.stringify(value, null, 2);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const fail = (error: string): Parsed => ({ ok: false, error });

/** The value to send for one field, or its French error. */
export function parseValue(field: ModelField, draft: FieldDraft, creating: boolean): Parsed {
  if (field.type === 'boolean') return { ok: true, value: draft === true };
  const text = String(draft).trim();
  if (text === '') {
    if (creating && field.required) return fail('Ce champ est obligatoire.');
    return { ok: true, value: field.type === 'array' ? [] : null };
  }
  switch (field.type) {
    case 'integer':
    case 'number': {
      const n = Number(text.replace(',', '.'));
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
        return fail(field.type === 'integer' ? 'Un entier est attendu.' : 'Un nombre est attendu.');
      if (field.min !== undefined && n < field.min) return fail(`Au moins ${NUMBER.format(field.min)}.`);
      if (field.max !== undefined && n > field.max) return fail(`Au plus ${NUMBER.format(field.max)}.`);
      return { ok: true, value: n };
    }
    case 'json':
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return fail('JSON invalide.');
      }
    case 'array': {
      const items = text
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean);
      if (field.max_items !== undefined && items.length > field.max_items)
        return fail(`Au plus ${NUMBER.format(field.max_items)} éléments.`);
      if (field.max_length !== undefined && items.some((s) => charCount(s) > field.max_length!))
        return fail(`Chaque élément : ${NUMBER.format(field.max_length)} caractères au plus.`);
      return { ok: true, value: items };
    }
    case 'enum':
      return field.choices && !field.choices.includes(text)
        ? fail(`Valeurs possibles : ${field.choices.join(', ')}.`)
        : { ok: true, value: text };
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? { ok: true, value: text } : fail('Une date (AAAA-MM-JJ) est attendue.');
    case 'datetime':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
        !Number.isNaN(Date.parse(text))
        ? { ok: true, value: text }
        : fail('Une date et heure ISO 8601 avec fuseau est attendue (par exemple 2026-05-04T09:12:00Z).');
    case 'uuid':
      return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)
        ? { ok: true, value: text }
        : fail('Un identifiant UUID est attendu.');
    default:
      if (field.max_length !== undefined && charCount(text) > field.max_length)
        return fail(`${NUMBER.format(field.max_length)} caractères au plus.`);
      return { ok: true, value: text };
  }
}

/**
 * The body of a creation (every writable field given) or of an edit (only what changed), or the errors by field.
 */
export function modelBody(
  model: AdminModel,
  drafts: Record<string, FieldDraft>,
  original?: ModelRow,
): { body: ModelRow; errors: Record<string, string> } {
  const creating = !original;
  const body: ModelRow = {};
  const errors: Record<string, string> = {};
  for (const field of writableFields(model, creating)) {
    const parsed = parseValue(field, drafts[field.name] ?? '', creating);
    if (!parsed.ok) {
      errors[field.name] = parsed.error;
      continue;
    }
    if (creating) {
      // Leave out what was not given, so the server's defaults apply.
      const empty = parsed.value === null || (Array.isArray(parsed.value) && parsed.value.length === 0);
      if (!empty || field.type === 'boolean') body[field.name] = parsed.value;
    } else {
      const before = parseValue(field, draftValue(field, original[field.name]), false);
      if (!before.ok || JSON.stringify(before.value) !== JSON.stringify(parsed.value)) body[field.name] = parsed.value;
    }
  }
  return { body, errors };
}

/** A cell of the rows table: short, French. */
export function displayValue(field: ModelField, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  switch (field.type) {
    case 'boolean':
      return value === true ? 'Oui' : 'Non';
    case 'datetime':
      return typeof value === 'string' ? formatDateTime(value) : '—';
    case 'date':
      return typeof value === 'string' ? formatDate(value) : '—';
    case 'integer':
    case 'number':
      return typeof value === 'number' ? NUMBER.format(value) : typeof value === 'string' ? value : '—';
    case 'array':
      return Array.isArray(value) ? value.map(String).join(', ') || '—' : '—';
    default: {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return text.length > 80 ? `${text.slice(0, 79)}…` : text;
    }
  }
}

/** The columns of the rows table: the key, then the first few short fields (the editor shows them all). */
export function tableFields(model: AdminModel, max = 6): ModelField[] {
  const keys = model.fields.filter((f) => model.primary_key.includes(f.name));
  const rest = model.fields.filter(
    (f) => !model.primary_key.includes(f.name) && f.type !== 'text' && f.type !== 'json' && f.name !== 'tenant_id',
  );
  return [...keys, ...rest].slice(0, max);
}
