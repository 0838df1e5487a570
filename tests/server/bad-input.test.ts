import { beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { auditEvents, serverLogs } from '../../server/src/db/schema.ts';
import { openExport, type ExportSpec } from '../../server/src/services/export-stream.ts';
import { apiFor, jsonOf, type Method, type Reply } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { multipart } from './support/http.ts';
import { ACME, seededTenants } from './support/world.ts';

// Issue 17 "bad input never a 500": every route the OpenAPI document lists, every query parameter, every path
// parameter and every body field, fed NUL characters, reserved names, lone surrogates (and bytes that are not
// UTF-8) and over-long text, signed in as a superuser and as an ordinary member of a tenant. No answer may be a 5xx,
// and every 4xx says what is wrong in French.

/** The JSON Schema subset the routes' TypeBox schemas produce. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  description?: string;
  errorMessage?: unknown;
}

interface Operation {
  method: Method;
  path: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  body?: Schema;
}

/** One request the property sends: where the bad text goes. */
type Target =
  | { kind: 'query'; op: Operation; name: string; schema: Schema }
  | { kind: 'path'; op: Operation; name: string }
  | { kind: 'body'; op: Operation; at: string[]; schema: Schema }
  | { kind: 'key'; op: Operation };

/** A bad text, and whether it is already percent-encoded (bytes that are not UTF-8 cannot be a JS string). */
interface Bad {
  text: string;
  encoded?: boolean;
}

const USERS = ['admin', 'analyste'] as const; // a superuser, and an ordinary member of Acme
const READ_ONLY = 'Lecture seule : ignoré';
const SEED = 20261128;

// The login routes answer in the specification's own English (spec §7, §8).
const SPEC_ENGLISH = new Set(['Invalid credentials', 'Username is required', 'Two-factor authentication required']);
// Words of Fastify's, ajv's and Node's own English messages; names and values quoted back (« … », the listed
// values) are left out before looking.
const ENGLISH = /\b(must|should|is required|is not|not valid|invalid|unexpected|cannot|forbidden|bad request|the)\b/i;
const QUOTED = /«[^»]*»|Valeurs possibles :.*$/g;

function expectSound(res: Reply, label: string): void {
  expect(res.statusCode, `${label} → ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode < 400) return;
  const { detail } = res.json<{ detail?: unknown }>();
  expect(typeof detail === 'string' && detail.trim() !== '', `${label}: no detail in ${res.body}`).toBe(true);
  const text = String(detail);
  if (!SPEC_ENGLISH.has(text)) expect(text.replace(QUOTED, ''), `${label}: not French: ${text}`).not.toMatch(ENGLISH);
}

// ---------------------------------------------------------------------------------------------------------------
// The route table, from the document the app serves.

function operationsOf(doc: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const op = raw as {
        parameters?: { in: string; name: string; schema: Schema }[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
      };
      const params = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        ...(body ? { body } : {}),
      });
    }
  }
  return ops;
}

/** The object branch of a body (a `Nullable(Object)` body is an anyOf). */
const objectOf = (schema: Schema | undefined): Schema | undefined =>
  schema?.properties ? schema : schema?.anyOf?.find((s) => s.properties);

const typesOf = (s: Schema): string[] =>
  s.anyOf ? s.anyOf.flatMap(typesOf) : Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];

/** Every field of a body, nested objects and lists of objects included (three levels), read-only ones left out. */
function fieldPaths(schema: Schema, at: string[] = [], depth = 0): { at: string[]; schema: Schema }[] {
  const object = objectOf(schema);
  if (!object?.properties || depth > 2) return [];
  const out: { at: string[]; schema: Schema }[] = [];
  for (const [name, field] of Object.entries(object.properties)) {
    if (field.description === READ_ONLY) continue;
    out.push({ at: [...at, name], schema: field });
    const items = field.items ?? field.anyOf?.find((s) => s.items)?.items;
    if (objectOf(field)) out.push(...fieldPaths(field, [...at, name], depth + 1));
    else if (items && objectOf(items)) out.push(...fieldPaths(items, [...at, name, '0'], depth + 1));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies that pass the schema, so the bad field travels as far as it can: the handler, the validator, the database.

/** Ids a body may name, by field: filled in beforeAll from the tenant's own rows. */
const refs: Record<string, number | undefined> = {};

let serial = 0;
/** A value no other row has yet (names and e-mails are unique). */
const fresh = (prefix: string) => `${prefix}${++serial}`;

function sampleString(name: string, s: Schema): string {
  const message = JSON.stringify(s.errorMessage ?? '') + (s.description ?? '');
  const listed =
    /Valeurs possibles : ([\w-]+)/.exec(message)?.[1] ??
    /(?:Rôle|Offre|Statut) : (\w+)/.exec(message)?.[1] ??
    /:? (\w+) ou \w+/.exec(message)?.[1];
  if (listed) return listed;
  if (s.format === 'date' || /AAAA-MM-JJ/.test(message) || /date|deadline/.test(name)) return '2026-06-15';
  if (/email/.test(name)) return `${fresh('valeur')}@exemple.fr`;
  if (/otp|token/.test(name)) return '000000';
  if (/password/.test(name)) return 'pas-le-bon-secret';
  if (name === 'ip_address') return '10.0.0.1';
  if (name === 'cve_id') return 'CVE-2024-0001';
  if (name === 'link' || name === 'featured_image' || name === 'logo_url') return '/projects';
  if (name === 'slug') return fresh('valeur-');
  if (name === 'domain') return `${fresh('valeur-')}.fr`;
  if (name === 'username') return fresh('valeur_');
  if (name === 'name' || name === 'title') return fresh('Valeur ');
  if (name === 'level') return 'info';
  if (name === 'scanner') return 'nmap';
  if (name === 'task_name') return 'vigie.tasks.inconnue';
  return 'Valeur';
}

/** A field naming another row: a real one when the suite knows it, else left out. */
const ID_FIELD = /(^|_)(id|owner|assignee|user|asset|threat|vulnerability|project|risk|plan)$/;

function sample(name: string, s: Schema): unknown {
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const types = typesOf(s);
  const branch = s.anyOf?.find((b) => typesOf(b).some((t) => t !== 'null'));
  if (branch) return sample(name, branch);
  if (types.includes('integer') || types.includes('number')) {
    if (ID_FIELD.test(name) || name === 'remediation_plan') return refs[name];
    return Math.max(s.minimum ?? 1, 1);
  }
  if (types.includes('string')) return sampleString(name, s);
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  if (types.includes('object') || s.properties) return sampleObject(s);
  return undefined;
}

function sampleObject(schema: Schema): Record<string, unknown> {
  const object = objectOf(schema);
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(object?.properties ?? {})) {
    if (field.description === READ_ONLY) continue;
    const value = sample(name, field);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** A create or a full replacement gets every field; a partial update only the field under test. */
const baseline = (op: Operation): Record<string, unknown> =>
  op.body && op.method !== 'PATCH' ? sampleObject(op.body) : {};

function withValue(body: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let node: Record<string, unknown> = copy;
  for (const [i, key] of at.slice(0, -1).entries()) {
    const next = at[i + 1]!;
    if (node[key] === null || typeof node[key] !== 'object') node[key] = /^\d+$/.test(next) ? [] : {};
    node = node[key] as Record<string, unknown>;
  }
  node[at.at(-1)!] = value;
  return copy;
}

/** The bad text in the field's shape: itself for a text, one item of a list of texts. */
const shaped = (schema: Schema, text: string): unknown =>
  typesOf(schema).includes('array') && !typesOf(schema).includes('string') ? [text] : text;

// ---------------------------------------------------------------------------------------------------------------
// The bad texts, by case.

const anyText = fc.string({ maxLength: 12 });
/** `deep`: the guard lets it through to the handler (slower); `keys`: also tried as a body key. */
const CASES: {
  name: string;
  deep: boolean;
  keys: boolean;
  /** The bad texts for a field of at most `maxLength` characters, in a URL (`inUrl`) or in a body. */
  bad: (maxLength: number | undefined, inUrl: boolean) => fc.Arbitrary<Bad>;
}[] = [
  {
    name: 'NUL characters',
    deep: false,
    keys: true,
    bad: () => fc.tuple(anyText, anyText).map(([a, b]) => ({ text: `${a}\u0000${b}` })),
  },
  {
    name: 'reserved names',
    deep: true,
    keys: true,
    bad: () =>
      fc
        .constantFrom(
          '__proto__',
          'constructor',
          'prototype',
          ' __PROTO__ ',
          'Constructor',
          'toString',
          'hasOwnProperty',
          'valueOf',
        )
        .map((text) => ({ text })),
  },
  {
    name: 'lone surrogates and bytes that are not UTF-8',
    deep: false,
    keys: true,
    bad: (_maxLength, inUrl) => {
      const lone = fc
        .tuple(anyText, fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF'), anyText)
        .map(([a, s, b]) => ({ text: `${a}${s}${b}` }));
      // Bytes that are not UTF-8 exist in a URL only: a JSON text is a string already (see the named tests).
      const bytes = fc
        .constantFrom('%FF', 'a%C3', '%ED%A0%80', '%C0%AF', '%F4%90%80%80')
        .map((text) => ({ text, encoded: true }));
      return inUrl ? fc.oneof(lone, bytes) : lone;
    },
  },
  {
    name: 'over-long texts',
    deep: true,
    keys: false,
    bad: (maxLength) => {
      const limit = maxLength ?? 3000;
      return fc
        .tuple(fc.constantFrom('a', 'é', '😀', '中'), fc.constantFrom(limit, limit + 1, 201, 301, 2000))
        .map(([unit, n]) => ({ text: unit.repeat(Math.min(n, limit + 1)) }));
    },
  },
];

/** Percent-encodes as a browser would, a lone surrogate as its (invalid) UTF-8 bytes. */
function encode(bad: Bad): string {
  if (bad.encoded) return bad.text;
  let out = '';
  for (const char of bad.text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

describe(`bad input never answers 5xx (${backend})`, () => {
  // No job runs: a launched backup or scan stays queued and the suite stays quick.
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  let ops: Operation[] = [];
  /** A real value for each path parameter, per user and route: the bad field then reaches the handler. */
  const realPaths = new Map<string, Record<string, string>>();

  const keys = new Map<string, Promise<string | undefined>>();
  /** The id (or slug, or name) of a row the list at `url` answers, if any (asked once per user and list). */
  const firstKey = (user: string, url: string): Promise<string | undefined> => {
    const key = `${user} ${url}`;
    if (!keys.has(key)) keys.set(key, readFirstKey(user, url));
    return keys.get(key)!;
  };

  async function readFirstKey(user: string, url: string): Promise<string | undefined> {
    const res = await api.call(user, 'GET', url, { tenant: ACME });
    if (res.statusCode !== 200) return undefined;
    const body: unknown = res.json();
    const lists = Array.isArray(body)
      ? [body]
      : Object.values((body ?? {}) as Record<string, unknown>).filter((v) => Array.isArray(v));
    for (const list of lists as unknown[][]) {
      const row = list.find((r) => r !== null && typeof r === 'object') as Record<string, unknown> | undefined;
      const key = row?.slug ?? row?.id ?? row?.name;
      if (typeof key === 'string' || typeof key === 'number') return String(key);
    }
    return undefined;
  }

  async function resolvePath(user: string, op: Operation): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    for (const name of op.pathParams) {
      const before = op.path.slice(0, op.path.indexOf(`{${name}}`));
      const collection = before.replace(/\{(\w+)\}/g, (_m, p: string) => values[p] ?? '0');
      const fake = name === 'id' && /celery|backups/.test(op.path) ? '00000000-0000-4000-8000-000000000000' : '999999';
      // A DELETE is sent to no real row: the suite needs its data, and a bad body must not decide.
      values[name] =
        op.method === 'DELETE'
          ? fake
          : name === 'format'
            ? 'csv'
            : name === 'cveId'
              ? 'CVE-2021-44228'
              : ((await firstKey(user, collection)) ?? fake);
    }
    return values;
  }

  const urlOf = (op: Operation, params: Record<string, string>, query = '') =>
    op.path.replace(/\{(\w+)\}/g, (_m, p: string) => encodeURIComponent(params[p] ?? '0')) + query;

  /** Sign-outs are sent without the caller's token: they would end the suite's own sessions. */
  const send = (user: string, op: Operation, url: string, payload?: unknown) =>
    api.call(user, op.method, url, {
      tenant: ACME,
      ...(payload !== undefined ? { payload } : {}),
      ...(/logout/.test(op.path) ? { headers: { authorization: '' } } : {}),
    });

  beforeAll(async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    ops = operationsOf(doc);
    // The audit buffer's body is read by the route itself (JSON or sendBeacon text), so the document shows no schema.
    const audit = ops.find((op) => op.path === '/api/audit/events/' && op.method === 'POST');
    if (audit) {
      audit.body = {
        type: 'object',
        properties: {
          token: { type: 'string' },
          events: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                event_id: { type: 'string' },
                event_type: { type: 'string' },
                severity: { type: 'string', enum: ['info'] },
                timestamp: { type: 'string' },
                url: { type: 'string' },
                details: { type: 'object', properties: { description: { type: 'string' }, k: { type: 'string' } } },
              },
            },
          },
        },
      };
    }
    for (const [field, url] of [
      ['project', '/api/projects/'],
      ['risk', '/api/projects/risks/'],
      ['remediation_plan', '/api/projects/remediation-plans/'],
      ['asset_id', '/api/assets/'],
      ['threat_id', '/api/threats/'],
      ['vulnerability_id', '/api/vulnerabilities/vulnerabilities/'],
      ['user_id', '/api/admin/users/'],
    ] as const) {
      const key = await firstKey('admin', url);
      refs[field] = key === undefined ? undefined : Number(key);
    }
    for (const user of USERS) {
      for (const op of ops) realPaths.set(`${user} ${op.method} ${op.path}`, await resolvePath(user, op));
    }
  }, 120_000);

  /**
   * Where the bad text goes. `deep` cases (past the guard, to the handler) spare the suite the requests that prove
   * nothing more: a field that is no text (a type error, whatever the text), and a PUT's fields when the same path
   * has a PATCH (one validator, one table).
   */
  const targetsOf = (kind: Target['kind'], deep: boolean): Target[] => {
    const out: Target[] = [];
    const patched = new Set(ops.filter((op) => op.method === 'PATCH').map((op) => op.path));
    const isText = (schema: Schema) =>
      typesOf(schema).includes('string') || (schema.items !== undefined && typesOf(schema.items).includes('string'));
    for (const op of ops) {
      if (!op.path.startsWith('/api/')) continue;
      if (kind === 'query') for (const q of op.query) out.push({ kind, op, name: q.name, schema: q.schema });
      if (kind === 'path') for (const name of op.pathParams) out.push({ kind, op, name });
      if (kind === 'key' && op.body) out.push({ kind, op });
      if (kind !== 'body' || !op.body || (deep && op.method === 'PUT' && patched.has(op.path))) continue;
      for (const f of fieldPaths(op.body)) {
        if (!deep || isText(f.schema)) out.push({ kind, op, at: f.at, schema: f.schema });
      }
    }
    return out;
  };

  /** One request: the bad text where the target says, everything else as a valid request would have it. */
  async function hit(target: Target, user: string, bad: Bad): Promise<void> {
    const { op } = target;
    const params = { ...realPaths.get(`${user} ${op.method} ${op.path}`) };
    const body = op.body ? baseline(op) : undefined;
    let url: string;
    let payload: unknown = body;
    if (target.kind === 'path') {
      const placeholder = '\u0001bad\u0001';
      params[target.name] = placeholder;
      url = urlOf(op, params).replace(encodeURIComponent(placeholder), encode(bad));
    } else if (target.kind === 'query') {
      url = urlOf(op, params, `?${encodeURIComponent(target.name)}=${encode(bad)}`);
    } else {
      url = urlOf(op, params);
      payload =
        target.kind === 'body'
          ? withValue(body ?? {}, target.at, shaped(target.schema, bad.text))
          : { ...body, [bad.text]: 'valeur' };
    }
    const label = `${user} ${op.method} ${url.slice(0, 160)} ${target.kind === 'body' ? target.at.join('.') : ''}`;
    expectSound(await send(user, op, url, payload), label);
  }

  for (const [index, testCase] of CASES.entries()) {
    describe(testCase.name, () => {
      for (const kind of ['query', 'path', 'body', 'key'] as const) {
        if (kind === 'key' && !testCase.keys) continue;
        it(`in every ${kind === 'key' ? 'body key' : kind === 'body' ? 'body field' : `${kind} parameter`}`, async () => {
          const targets = targetsOf(kind, testCase.deep);
          expect(targets.length).toBeGreaterThan(0);
          for (const [i, target] of targets.entries()) {
            const maxLength = target.kind === 'query' || target.kind === 'body' ? target.schema.maxLength : undefined;
            // Refused before authentication, a case is cheap: both users every time. One that reaches the
            // handler is sent once, as each user in turn.
            const users = testCase.deep ? [USERS[i % USERS.length]!] : USERS;
            for (const user of users) {
              // The bad text is drawn by fast-check, and shrunk to the simplest one on a failure.
              await fc.assert(
                fc.asyncProperty(testCase.bad(maxLength, kind === 'query' || kind === 'path'), (bad) =>
                  hit(target, user, bad),
                ),
                { numRuns: 1, seed: SEED + index * 10_000 + i },
              );
            }
          }
        });
      }
    });
  }
});

describe(`what the probe saw, one by one (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  const nul = (field: string) => `Caractère nul interdit dans « ${field} ».`;

  it('refuses a NUL in the sign-in name with a French 400, before any account is looked up', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'ad\u0000min', password: 'x' },
    });
    expect(jsonOf(res, 400)).toEqual({
      detail: nul('username'),
      code: 'invalid',
      fields: { username: [nul('username')] },
    });
  });

  it('names the field of a NUL at any depth of a body, keys included, and in query and path parameters', async () => {
    const created = await api.call('admin', 'POST', '/api/assets/', {
      tenant: ACME,
      payload: { name: 'Serveur', asset_type: 'server', tags: ['ok', 'k\u0000o'] },
    });
    expect(jsonOf(created, 400)).toMatchObject({ detail: nul('tags[1]'), fields: { tags: [nul('tags[1]')] } });
    const key = await api.call('analyste', 'PATCH', '/api/accounts/me/', { payload: { 'first\u0000name': 'x' } });
    expect(jsonOf(key, 400)).toMatchObject({ detail: nul('first?name') });
    const query = await api.call('admin', 'GET', '/api/assets/?text=a%00b', { tenant: ACME });
    expect(jsonOf(query, 400)).toEqual({ detail: nul('text'), code: 'invalid', fields: { text: [nul('text')] } });
    const path = await api.call('admin', 'GET', '/api/blog/posts/a%00b/', { tenant: ACME });
    expect(jsonOf(path, 400)).toMatchObject({ detail: nul('slug') });
    // The guard runs before authentication: nothing of the request reaches the database.
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/assets/?text=%00' });
    expect(anonymous.statusCode).toBe(400);
  });

  it('refuses lone surrogates, and bytes that are not UTF-8 in a body, a query or a path', async () => {
    const lone = 'Caractère Unicode invalide dans « title ».';
    const threat = await api.call('admin', 'POST', '/api/threats/', { tenant: ACME, payload: { title: 'a\uD800' } });
    expect(jsonOf(threat, 400)).toEqual({ detail: lone, code: 'invalid', fields: { title: [lone] } });
    const bytes = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.concat([
        Buffer.from('{"username":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","password":"x"}'),
      ]),
    });
    expect(jsonOf(bytes, 400)).toEqual({ detail: 'Corps de la requête mal encodé : UTF-8 attendu.', code: 'invalid' });
    const query = await api.call('admin', 'GET', '/api/assets/?text=%FF', { tenant: ACME });
    expect(jsonOf(query, 400)).toMatchObject({ detail: 'Paramètre « text » mal encodé : UTF-8 attendu.' });
    const surrogate = await api.call('admin', 'GET', '/api/assets/?text=%ED%A0%80', { tenant: ACME });
    expect(surrogate.statusCode).toBe(400);
    const path = await api.call('admin', 'GET', '/api/assets/%FF/', { tenant: ACME });
    expect(jsonOf(path, 400)).toEqual({ detail: 'Adresse mal encodée : UTF-8 attendu.', code: 'bad_url' });
    // A % that escapes nothing is taken as it is, as before.
    expect((await api.call('admin', 'GET', '/api/assets/?text=100%', { tenant: ACME })).statusCode).toBe(200);
  });

  it('answers ?level=__proto__ (and its cousins) with a 400 naming the parameter', async () => {
    for (const query of ['level=__proto__', 'level=CONSTRUCTOR', 'min_level=__proto__']) {
      const res = await api.call('admin', 'GET', `/api/admin/logs/?${query}`);
      const field = query.split('=')[0]!;
      expect(jsonOf(res, 400), query).toMatchObject({ code: 'invalid', fields: { [field]: [expect.any(String)] } });
    }
    // Not refused by the guard, but no longer found on Object's prototype either.
    const res = await api.call('admin', 'GET', '/api/admin/logs/?level=hasOwnProperty');
    expect(jsonOf(res, 400)).toMatchObject({ fields: { level: [expect.stringMatching(/^Niveau invalide/)] } });
    // Text parameters take any word, and a path names a row (a slug may well be « prototype »).
    expect((await api.call('admin', 'GET', '/api/admin/logs/?q=constructor')).statusCode).toBe(200);
    expect((await api.call('admin', 'GET', '/api/audit/results/?user=constructor', { tenant: ACME })).statusCode).toBe(
      200,
    );
    expect(jsonOf(await api.call('admin', 'GET', '/api/blog/posts/prototype/', { tenant: ACME }), 404)).toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses a NUL in an audit beacon (text/plain), and a client severity named like a prototype key is INFO', async () => {
    const beacon = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ events: [{ event_type: 'ui', details: { description: 'a\u0000' } }] }),
    });
    expect(jsonOf(beacon, 400)).toMatchObject({ fields: { events: [nul('events[0].details.description')] } });
    const odd = await api.call('admin', 'POST', '/api/audit/events/', {
      tenant: ACME,
      payload: { events: [{ event_type: 'ui', severity: 'toString', details: { description: '😀'.repeat(600) } }] },
    });
    expect(jsonOf(odd, 202)).toEqual({ accepted: 1, duplicates: 0 });
  });

  it('checks the text fields and file names of multipart forms', async () => {
    const projectId = (await api.call('admin', 'GET', '/api/projects/', { tenant: ACME })).json().results[0].id;
    const forms: [string, Parameters<typeof multipart>[0], string][] = [
      ['/api/vulnerabilities/scans/import/', [{ name: 'name', value: 'a\u0000' }], 'name'],
      [
        '/api/projects/documents/',
        [
          { name: 'project', value: String(projectId) },
          { name: 'title', value: '\u0000' },
        ],
        'title',
      ],
      ['/api/admin/backups/upload/', [{ name: 'note', value: 'x\u0000' }], 'note'],
      [
        '/api/blog/images/',
        [{ name: 'file', filename: 'a\u0000.png', content: 'x', type: 'image/png' }],
        'file (nom du fichier)',
      ],
    ];
    for (const [url, parts, field] of forms) {
      const form = multipart(parts);
      const res = await api.call('admin', 'POST', url, { tenant: ACME, payload: form.payload, headers: form.headers });
      expect(jsonOf(res, 400), url).toMatchObject({ detail: nul(field) });
    }
  });

  it('streams every row of the audit and log exports, whatever shape a stored row has', async () => {
    const { acme } = await seededTenants(t.database.db);
    const marker = `forme-${Date.now()}`;
    await t.database.db.insert(auditEvents).values([
      { tenantId: acme, eventType: 'odd', description: `${marker} null`, details: sql`'null'::jsonb` },
      { tenantId: acme, eventType: 'odd', description: `${marker} texte`, details: sql`'"texte"'::jsonb` },
      { tenantId: acme, eventType: 'odd', description: `${marker} liste`, details: sql`'[1,2]'::jsonb` },
    ]);
    await t.database.db.insert(serverLogs).values([
      { level: 'error', message: `${marker} null`, context: sql`'null'::jsonb` },
      { level: 'error', message: `${marker} liste`, context: sql`'[1]'::jsonb` },
    ]);
    for (const format of ['json', 'csv']) {
      const audit = await api.call('admin', 'GET', `/api/audit/export/${format}/?q=${marker}`, { tenant: ACME });
      expect(audit.statusCode).toBe(200);
      expect(audit.body.split(marker).length - 1, audit.body).toBe(3);
      const logs = await api.call('admin', 'GET', `/api/admin/logs/export/?format=${format}&q=${marker}`);
      expect(logs.statusCode).toBe(200);
      expect(logs.body.split(marker).length - 1, logs.body).toBe(2);
      if (format === 'json') expect(JSON.parse(logs.body)[0].context).toEqual({});
    }
  });

  it('answers an error, not a 200 cut short, when an export fails before its first byte', async () => {
    const spec = (batchAfter: ExportSpec<{ id: number }>['batchAfter']): ExportSpec<{ id: number }> => ({
      format: 'json',
      csvHeader: ['Identifiant'],
      batchSize: 2,
      batchAfter,
      csvRow: (row) => `${row.id}\r\n`,
      jsonRow: (row) => {
        if (row.id === 2) throw new Error('ligne illisible');
        return row;
      },
    });
    await expect(
      openExport(
        spec(() => Promise.reject(new Error('base indisponible'))),
        () => {},
      ),
    ).rejects.toThrow('base indisponible');
    // Once started, a row that cannot be written is left out and reported; the file stays whole.
    const failures = vi.fn();
    const chunks: string[] = [];
    const batches = [[{ id: 1 }, { id: 2 }], [{ id: 3 }]];
    for await (const chunk of await openExport(
      spec(async () => batches.shift() ?? []),
      failures,
    ))
      chunks.push(chunk);
    expect(JSON.parse(chunks.join(''))).toEqual([{ id: 1 }, { id: 3 }]);
    expect(failures).toHaveBeenCalledTimes(1);
  });
});
