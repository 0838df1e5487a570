/**
 * One rule for every API input, applied before any handler (docs/api-accounts.md "Bad input"): text the database
 * cannot store or the code must not look up is refused with a French 400 naming the field, instead of failing
 * deep inside as a 500.
 *
 * - a NUL character, or a lone UTF-16 surrogate, in any string of a JSON (or text/plain) body at any depth, keys
 *   included, in a query or path parameter, or in a multipart text field (or file name);
 * - a body (JSON or text) or a query string that is not valid UTF-8;
 * - a reserved name (`__proto__`, `constructor`, `prototype`) as a key of a body or a query, or as the value of a
 *   query parameter (they name levels, filters, orderings… that the code looks up), text parameters excepted.
 */
import { Transform, type TransformCallback, pipeline } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Multipart text fields this route cleans itself as file names (control characters, NUL included, dropped by
     * safeFileName): a NUL there is not refused. Lone surrogates still are.
     */
    fileNameFields?: readonly string[];
  }
}

const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
/** Query parameters that are text (searches, a username, a tag), never looked up by name: any word may be sent. */
const FREE_TEXT = new Set(['q', 'search', 'text', 'user', 'tag']);
// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- control characters are what a shown name must not carry
const UNPRINTABLE = /[\u0000-\u001f\u007f]|[\uD800-\uDFFF]/g;
const TEXT_BODY = /^(application\/([\w.+-]*\+)?json|text\/)/i;

export const INPUT_MESSAGES = {
  nul: (field: string) => `Caractère nul interdit dans « ${field} ».`,
  surrogate: (field: string) => `Caractère Unicode invalide dans « ${field} ».`,
  reservedKey: (field: string) => `Nom de champ réservé refusé : « ${field} ».`,
  reservedValue: (field: string) => `Valeur réservée refusée pour « ${field} ».`,
  queryEncoding: (field: string) => `Paramètre « ${field} » mal encodé : UTF-8 attendu.`,
  bodyEncoding: 'Corps de la requête mal encodé : UTF-8 attendu.',
  badUrl: 'Adresse mal encodée : UTF-8 attendu.',
  paramTooLong: 'Paramètre d’adresse trop long.',
} as const;

/** A field name as a message may show it: no control characters or surrogates, at most 64 UTF-16 units. */
const shown = (name: string) => {
  const clean = name.replace(UNPRINTABLE, '?');
  return clean.length > 64 ? `${clean.slice(0, 63)}…` : clean;
};

/** 400 on `field` (its top-level name), the message naming `label` (its full path). */
function refused(field: string, message: string): ApiError {
  return new ApiError(400, 'invalid', message, { fields: { [shown(field)]: [message] } });
}

/**
 * The refusal a string deserves, if any; `reservedToo` when the string names something the code looks up,
 * `nulCleaned` when the route drops control characters from it itself.
 */
function check(
  text: string,
  field: string,
  label: string,
  reservedToo: boolean,
  nulCleaned = false,
): ApiError | undefined {
  if (!nulCleaned && text.includes('\u0000')) return refused(field, INPUT_MESSAGES.nul(shown(label)));
  if (LONE_SURROGATE.test(text)) return refused(field, INPUT_MESSAGES.surrogate(shown(label)));
  if (reservedToo && RESERVED.has(text.trim().toLowerCase())) {
    return refused(field, INPUT_MESSAGES.reservedValue(shown(label)));
  }
  return undefined;
}

/** The first problem of a parsed body, in document order: keys and strings at any depth. */
function bodyProblem(body: unknown): ApiError | undefined {
  if (typeof body === 'string') return check(body, 'non_field_errors', 'corps', false);
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
  // Iterative, so a deeply nested body cannot overflow the stack.
  const stack: { value: unknown; field: string; label: string }[] = [{ value: body, field: '', label: '' }];
  while (stack.length > 0) {
    const { value, field, label } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = check(value, field || 'non_field_errors', label || 'corps', false);
      if (problem) return problem;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const children: { value: unknown; field: string; label: string }[] = [];
    if (Array.isArray(value)) {
      value.forEach((item, i) =>
        children.push({ value: item, field: field || 'non_field_errors', label: `${label}[${i}]` }),
      );
    } else {
      for (const key of Object.keys(value)) {
        const childLabel = label ? `${label}.${key}` : key;
        const childField = field || key;
        const problem = check(key, childField, childLabel, false);
        if (problem) return problem;
        if (RESERVED.has(key)) return refused(childField, INPUT_MESSAGES.reservedKey(shown(childLabel)));
        children.push({ value: (value as Record<string, unknown>)[key], field: childField, label: childLabel });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
/** Whether the bytes one raw query component's `%XX` escapes spell are UTF-8 (a lone `%` stays as sent). */
function decodesAsUtf8(raw: string): boolean {
  if (!raw.includes('%')) return true;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const escaped = raw[i] === '%' && /^[0-9a-f]{2}$/i.test(raw.slice(i + 1, i + 3));
    if (escaped) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(raw[i]!, 'utf8'));
    }
  }
  try {
    strictDecoder.decode(Uint8Array.from(bytes));
    return true;
  } catch {
    return false;
  }
}

/** The first problem of the query string: its encoding as sent, then each parameter's name and values. */
function queryProblem(request: FastifyRequest): ApiError | undefined {
  const at = request.url.indexOf('?');
  if (at >= 0) {
    for (const pair of request.url.slice(at + 1).split('&')) {
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      if (!decodesAsUtf8(rawKey) || (eq >= 0 && !decodesAsUtf8(pair.slice(eq + 1)))) {
        let name = rawKey;
        try {
          name = decodeURIComponent(rawKey.replace(/\+/g, ' '));
        } catch {
          // Shown as sent.
        }
        return refused(name, INPUT_MESSAGES.queryEncoding(shown(name)));
      }
    }
  }
  const query = request.query;
  if (query === null || typeof query !== 'object') return undefined;
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    const problem = check(key, key, key, false);
    if (problem) return problem;
    if (RESERVED.has(key)) return refused(key, INPUT_MESSAGES.reservedKey(shown(key)));
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (typeof item !== 'string') continue;
      const bad = check(item, key, key, !FREE_TEXT.has(key));
      if (bad) return bad;
    }
  }
  return undefined;
}

function paramsProblem(request: FastifyRequest): ApiError | undefined {
  const params = request.params;
  if (params === null || typeof params !== 'object') return undefined;
  for (const [key, value] of Object.entries(params as Record<string, unknown>)) {
    // A path names a row (an id, a slug a title gave: « prototype » is one) or a model the registry looks up as
    // its own key: reserved names are not refused here, NUL and broken surrogates are.
    if (typeof value === 'string') {
      const problem = check(value, key, key, false);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** A multipart part as this guard reads it (@fastify/multipart's field and file parts). */
interface Part {
  type: 'field' | 'file';
  fieldname: string;
  value?: unknown;
  filename?: string;
}
type PartsFn = (options?: unknown) => AsyncIterableIterator<Part>;

/** The request's multipart parts, each field's text (and each file's name) checked as it arrives. */
function guardParts(request: FastifyRequest): void {
  const holder = request as unknown as { parts?: PartsFn; isMultipart?: () => boolean };
  const original = holder.parts;
  if (typeof original !== 'function' || !holder.isMultipart?.()) return;
  const fileNames = new Set(request.routeOptions.config.fileNameFields ?? []);
  holder.parts = (options?: unknown) =>
    (async function* checked() {
      for await (const part of original.call(request, options)) {
        const problem =
          check(part.fieldname, part.fieldname, part.fieldname, false) ??
          (part.type === 'field' && typeof part.value === 'string'
            ? check(part.value, part.fieldname, part.fieldname, false, fileNames.has(part.fieldname))
            : undefined) ??
          (part.type === 'file' && typeof part.filename === 'string'
            ? check(part.filename, part.fieldname, `${part.fieldname} (nom du fichier)`, false)
            : undefined);
        if (problem) {
          // The file's bytes are not wanted any more.
          (part as { file?: { resume: () => void } }).file?.resume();
          throw problem;
        }
        yield part;
      }
    })();
}

/** Passes a body through unchanged, failing with the French 400 at the first byte sequence that is not UTF-8. */
class Utf8Check extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      done(new ApiError(400, 'invalid', INPUT_MESSAGES.bodyEncoding));
      return;
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    try {
      this.decoder.decode();
    } catch {
      done(new ApiError(400, 'invalid', INPUT_MESSAGES.bodyEncoding));
      return;
    }
    done();
  }
}

/**
 * Fastify's own refusals made before any route runs (a path that does not decode, a path parameter over the
 * router's limit), in the API's French shape. Given to Fastify as its `frameworkErrors` option (build-app.ts).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void reply
    .code(tooLong ? 414 : 400)
    .header('Cache-Control', 'no-store')
    .send({
      detail: tooLong ? INPUT_MESSAGES.paramTooLong : INPUT_MESSAGES.badUrl,
      code: tooLong ? 'param_too_long' : 'bad_url',
    });
}

export default fp(
  async (app) => {
    app.addHook('preParsing', async (request, _reply, payload) => {
      const type = request.headers['content-type'];
      if (typeof type !== 'string' || !TEXT_BODY.test(type)) return payload;
      const checked = new Utf8Check();
      // pipeline, so a client that hangs up mid-body ends the check too.
      return pipeline(payload, checked, () => {});
    });

    // Global, so it runs before every route's own preValidation hooks (authentication) and its schema.
    app.addHook('preValidation', async (request) => {
      if (!request.url.startsWith('/api/')) return;
      const problem = paramsProblem(request) ?? queryProblem(request) ?? bodyProblem(request.body);
      if (problem) throw problem;
      guardParts(request);
    });
  },
  { name: 'input-guard' },
);
