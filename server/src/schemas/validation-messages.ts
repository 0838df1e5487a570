/**
 * Schema errors → the API's `{detail, code, fields}` in French. A property schema may carry its own message
 * (`errorMessage: 'Le nom est requis.'`, or one per keyword: `errorMessage: {required: '…', maxLength: '…'}`), so
 * the routes keep their exact texts; otherwise the keyword's generic French message is used.
 */

/** The parts of an ajv error this needs (Fastify hands over ajv's objects, built with `verbose: true`). */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  parentSchema?: unknown;
}

type MessageSpec = string | Partial<Record<string, string>>;

const TYPE_NAMES: Record<string, string> = {
  string: 'un texte',
  integer: 'un entier',
  number: 'un nombre',
  boolean: 'true ou false',
  object: 'un objet',
  array: 'une liste',
  null: 'null',
};

function genericMessage(error: SchemaError): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return 'Ce champ est obligatoire.';
    case 'additionalProperties':
      return `Champ inconnu : « ${String(p.additionalProperty)} ».`;
    case 'type': {
      const types = Array.isArray(p.type) ? (p.type as string[]) : String(p.type).split(',');
      return `Type invalide (attendu : ${types.map((t) => TYPE_NAMES[t] ?? t).join(' ou ')}).`;
    }
    case 'maxLength':
      return `Au plus ${String(p.limit)} caractères.`;
    case 'minLength':
      return Number(p.limit) <= 1 ? 'Ce champ ne peut pas être vide.' : `Au moins ${String(p.limit)} caractères.`;
    case 'maxItems':
      return `Au plus ${String(p.limit)} éléments.`;
    case 'minItems':
      return `Au moins ${String(p.limit)} élément(s).`;
    case 'maximum':
      return `Valeur trop grande : au plus ${String(p.limit)}.`;
    case 'minimum':
      return `Valeur trop petite : au moins ${String(p.limit)}.`;
    case 'enum':
    case 'const': {
      const allowed =
        (p.allowedValues as unknown[] | undefined) ?? (p.allowedValue !== undefined ? [p.allowedValue] : []);
      return allowed.length ? `Valeur invalide. Valeurs possibles : ${allowed.join(', ')}.` : 'Valeur invalide.';
    }
    case 'anyOf':
    case 'oneOf':
      return 'Valeur invalide.';
    case 'format':
      return `Format invalide (${String(p.format)}).`;
    case 'pattern':
      return 'Format invalide.';
    case 'uniqueItems':
      return 'Les éléments doivent être distincts.';
    default:
      return 'Valeur invalide.';
  }
}

const specOf = (schema: unknown): MessageSpec | undefined =>
  schema && typeof schema === 'object'
    ? ((schema as { errorMessage?: MessageSpec }).errorMessage ?? undefined)
    : undefined;

const pick = (spec: MessageSpec | undefined, keyword: string): string | undefined =>
  spec === undefined ? undefined : typeof spec === 'string' ? spec : (spec[keyword] ?? spec.default);

/** The field an error belongs to (top-level key, as the API has always reported) and its message. */
export function fieldMessage(error: SchemaError): { field: string; message: string } {
  const missing = error.params.missingProperty as string | undefined;
  const extra = error.params.additionalProperty as string | undefined;
  const field = missing ?? extra ?? (error.instancePath.replace(/^\//, '').split('/')[0] || 'non_field_errors');
  let message: string | undefined;
  if (missing !== undefined) {
    // The missing property's own schema says what to tell the user.
    const props = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    message = pick(specOf(props?.[missing]), 'required');
  } else if (extra === undefined) {
    message = pick(specOf(error.parentSchema), error.keyword);
  }
  return { field, message: message ?? genericMessage(error) };
}

/**
 * `fields` for the error body: one message per field, the first one ajv reports. For a union (`Nullable(...)`)
 * ajv reports each branch and then `anyOf`; the first branch is the real type, whose message is the useful one.
 */
export function fieldMessages(errors: readonly SchemaError[]): Record<string, string[]> {
  // No prototype: an unknown key named `constructor` is reported like any other.
  const fields = Object.create(null) as Record<string, string[]>;
  for (const error of errors) {
    const { field, message } = fieldMessage(error);
    fields[field] ??= [message];
  }
  return fields;
}
