/**
 * What risks, remediation plans, corrective actions and tasks share: the French messages, the body fields' schemas
 * and the one validator shape, the one loader (object → project → gate), and `workKit(app).register(spec)`, which
 * answers a kind's list, creation, reading, change, deletion and progress.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SQL } from 'drizzle-orm';
import type { TObject } from 'typebox';
import type { TenantDb } from '../../../../db/tenant-scope.ts';
import { ApiError, FieldErrors, notFound } from '../../../../domain/errors.ts';
import { PROGRESS_MESSAGE, todayUtc } from '../../../../domain/risk-scoring.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import { ProjectAccessRepository, type ActivityEntry } from '../../../../repositories/project-access.ts';
import { ProjectWorkRepository, type Page } from '../../../../repositories/project-work.ts';
import {
  IdParams,
  NoContent,
  OrNull as nullable,
  Paged,
  replies,
  type Static,
  type TSchema,
  Type,
} from '../../../../schemas/common.ts';
import { displayName, notifierOf, type Created } from '../../../../services/notifier.ts';
import { auditProjectWrite, projectGate, type ProjectNeed } from '../access.ts';
import { accessGuards } from '../../shared.ts';
import { pagedResponse } from '../../../../presenters/paged.ts';
import { parsePaging, type RawQuery } from '../../../../schemas/query.ts';

const MAX_TITLE = 300;
const MAX_TEXT = 20_000;

export const MESSAGES = {
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  text: `Texte invalide : au plus ${MAX_TEXT} caractères.`,
  nul: 'Le texte ne doit pas contenir de caractère nul.',
  id: 'Identifiant invalide : un entier positif est attendu.',
  date: 'Date invalide : format AAAA-MM-JJ attendu.',
  projectRequired: 'Le projet est requis.',
  projectUnknown: 'Projet introuvable.',
  projectFixed: 'Le projet ne peut pas être changé.',
  userUnknown: 'Utilisateur introuvable dans cette organisation.',
} as const;

/** The 1–4 scores of the matrix by body key, for « La vraisemblance est requise. » and the like. */
const SCORES = {
  likelihood: 'La vraisemblance',
  impact: 'La gravité',
  target_likelihood: 'La vraisemblance cible',
  target_impact: 'La gravité cible',
} as const;

export const fieldError = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

/** A list of values (status, treatment…): its French refusal, its body field, and its reading, case-insensitive. */
export function choices<T extends string>(label: string, allowed: readonly T[]) {
  const message = `${label} invalide. Valeurs possibles : ${allowed.join(', ')}.`;
  const has = (value: string): value is T => (allowed as readonly string[]).includes(value);
  return { message, has, field: Type.Optional(Type.String({ maxLength: 64, errorMessage: message })) };
}
type Choices<T extends string> = ReturnType<typeof choices<T>>;

// Bodies: types and sizes by the schema, with each field's French message; trimming, case, required fields and the
// rules between fields in code.
const NO_NUL = '^[^\\u0000]*$';
/** Optional, and null allowed as one JSON type list (fields.ts), so that a refusal carries one message. */
const orNull = <T>(type: 'string' | 'integer', options: Record<string, unknown>) =>
  Type.Optional(nullable<T>(type, options));
const id = { minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: MESSAGES.id };
const progress = Type.Integer({ minimum: 0, maximum: 100, errorMessage: PROGRESS_MESSAGE });
const ProgressBody = Type.Object({ progress }, { additionalProperties: false });

export const Field = {
  title: Type.Optional(
    Type.String({
      maxLength: 1000,
      pattern: NO_NUL,
      errorMessage: { type: MESSAGES.titleRequired, maxLength: MESSAGES.titleTooLong, pattern: MESSAGES.nul },
    }),
  ),
  /** Free text; null clears it. PostgreSQL text cannot hold NUL: refused here rather than in the database. */
  text: orNull<string>('string', {
    maxLength: MAX_TEXT,
    pattern: NO_NUL,
    errorMessage: { default: MESSAGES.text, pattern: MESSAGES.nul },
  }),
  score: (key: keyof typeof SCORES) =>
    Type.Optional(
      Type.Integer({ minimum: 1, maximum: 4, errorMessage: `${SCORES[key]} doit être un entier entre 1 et 4.` }),
    ),
  /** The parent (project, risk, plan) on creation, where null counts as missing; a change never moves it. */
  parent: orNull<number>('integer', id),
  /** A reference that null clears (asset, owner, assignee…). */
  ref: orNull<number>('integer', id),
  /** A real calendar day written YYYY-MM-DD (2025-02-30 is refused), or null. */
  date: orNull<string>('string', {
    pattern: '^[1-9]\\d{3}-\\d{2}-\\d{2}$',
    format: 'date',
    errorMessage: MESSAGES.date,
  }),
  progress: Type.Optional(progress),
};

/** Free text as stored: trimmed, null cleared to ''. */
export const text = (raw: string | null | undefined) => (raw === null ? '' : raw?.trim());

/** What a kind's validator asks of the body beyond its schema, with one FieldErrors for the whole body. */
export interface FieldReader {
  /** A score the schema checked; required on full writes (POST, PUT). */
  score(key: keyof typeof SCORES, value: number | undefined): number | undefined;
  choice<T extends string>(key: string, raw: string | undefined, list: Choices<T>): T | undefined;
}
type Titled = { title?: string | undefined; description?: string | null | undefined };
export type Read<B, V> = (body: B, full: boolean, creating?: boolean) => { parent: number | undefined; values: V };

/**
 * The validator of one kind, shared by POST, PUT and PATCH: the parent (`parentKey`, required on creation), the
 * title and description, then the kind's own fields (`read`). Drops what was not sent, so an update sets only that.
 */
export function bodyReader<B extends Titled, V extends object>(
  parentKey: string,
  parentRequired: string,
  read: (body: B, r: FieldReader) => V,
): Read<B, V> {
  return (body, full, creating = false) => {
    const errors = new FieldErrors();
    const parent = (body as Record<string, unknown>)[parentKey] as number | null | undefined;
    if (parent === null || (parent === undefined && creating)) {
      errors.add(parentKey, creating ? parentRequired : MESSAGES.id);
    }
    let title: string | undefined;
    if (body.title !== undefined || full) {
      title = (body.title ?? '').trim();
      if (title === '') errors.add('title', MESSAGES.titleRequired);
      else if (title.length > MAX_TITLE) errors.add('title', MESSAGES.titleTooLong);
    }
    const own = read(body, {
      score: (key, value) => {
        if (value === undefined && full) errors.add(key, `${SCORES[key]} est requise.`);
        return value;
      },
      choice: (key, raw, list) => {
        const value = raw?.trim().toUpperCase();
        if (value === undefined || list.has(value)) return value;
        errors.add(key, list.message);
      },
    });
    errors.throwIfAny();
    const values = Object.entries({ title, description: text(body.description), ...own });
    return { parent: parent ?? undefined, values: Object.fromEntries(values.filter(([, v]) => v !== undefined)) as V };
  };
}

/** Several values of a list, comma-separated, in a query parameter (`status=TODO,DONE`). */
export function parseChoices<T extends string>(
  errors: FieldErrors,
  query: RawQuery,
  key: string,
  list: Choices<T>,
  normalise: (v: string) => string = (v) => v.toUpperCase(),
): T[] | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const values = raw
    .split(',')
    .map((v) => normalise(v.trim()))
    .filter((v) => v !== '');
  if (values.length > 0 && values.every(list.has)) return [...new Set(values)];
  errors.add(key, list.message);
}

const OBJECTS = {
  risk: ['Risque', ''],
  remediation_plan: ['Plan de remédiation', ''],
  corrective_action: ['Action', 'e'],
  task: ['Tâche', 'e'],
} as const;
const VERBS = { created: 'créé', updated: 'modifié', deleted: 'supprimé' } as const;

type Row = { id: number; projectId: number; title: string; progress?: number; assigneeId?: number | null };
/** Appends « Risque « … » créé » (and the like) to the project's activity. */
type Note = (objectType: keyof typeof OBJECTS, action: keyof typeof VERBS | 'progress', row: Row) => Promise<void>;
type AssignKind = 'task_assigned' | 'action_assigned';
/** Tells an assignee (notifications), in the write's transaction. */
type Assign = (kind: AssignKind, row: Row) => Promise<void>;
type Find<R> = (tx: TenantDb, id: number) => Promise<R | undefined>;

/**
 * The one loader of the projects area: the object found by `find`, then its project through the gate — 404 when
 * either is out of reach (another tenant's, or a project the caller cannot read), 403 when the caller may not
 * `need` it. Work and documents load their objects through it.
 */
export function gatedLoader<R extends { projectId: number }>(gate: ReturnType<typeof projectGate>, find: Find<R>) {
  return async (request: FastifyRequest, tx: TenantDb, id: number, need: ProjectNeed): Promise<R> => {
    const row = await find(tx, id);
    if (!row) throw notFound();
    await gate.require(request, tx, row.projectId, need);
    return row;
  };
}

/** One kind of work, as `register` answers it. */
export interface WorkSpec<R extends Row, B extends TObject, V, F> {
  path: string;
  tags: string[];
  objectType: keyof typeof OBJECTS;
  reply: TSchema;
  present: (row: R, today: string) => unknown;
  query: TObject;
  filters: (errors: FieldErrors, query: RawQuery) => F;
  page: (tx: TenantDb, readable: SQL, filters: F, today: string, page: Page) => Promise<{ count: number; rows: R[] }>;
  find: Find<R>;
  body: B;
  read: Read<Static<B>, V>;
  /** The parent a change may send back but never change: its body key, its id on a row, the refusal. */
  parent: [key: string, of: (row: R) => number, fixed: string];
  /** In the creation's transaction: checks the parent (field errors) and the references, inserts. */
  create: (request: FastifyRequest, tx: TenantDb, parent: number, values: V) => Promise<R>;
  /** In the change's transaction, after the gate: checks, updates, and reads the row again. */
  update: (tx: TenantDb, current: R, values: V) => Promise<R>;
  remove: (tx: TenantDb, row: R) => Promise<boolean>;
  /** Tasks and actions: the assignee is told, and update_progress moves them. */
  assigned?: AssignKind;
  /** Statuses the creation may answer besides 400 (a plan's 409). */
  createErrors?: number[];
}

export function workKit(app: FastifyInstance) {
  const repo = new ProjectWorkRepository();
  const access = new ProjectAccessRepository();
  const gate = projectGate();
  const notifier = notifierOf(app.database);
  const guard = accessGuards(app);

  /** Referenced rows must exist in the current tenant; another tenant's id is as unknown as a made-up one. */
  const checkReferences = async (
    refs: [string, number | null | undefined, (id: number) => Promise<boolean>, string][],
  ) => {
    const errors = new FieldErrors();
    for (const [field, id, exists, message] of refs) {
      if (id !== null && id !== undefined && !(await exists(id))) errors.add(field, message);
    }
    errors.throwIfAny();
  };

  /**
   * Runs a write in one tenant transaction; what it notes goes to the project's activity, then to the audit; the
   * assignees it tells are notified in the same transaction, and their streams once it committed.
   */
  const write = async <T>(request: FastifyRequest, work: (tx: TenantDb, note: Note, assign: Assign) => Promise<T>) => {
    const entries: ActivityEntry[] = [];
    const notices: Created[] = [];
    const user = signedIn(request).user;
    const actor = { id: user.id, name: displayName(user) };
    const result = await request.tenantDb((tx) =>
      work(
        tx,
        async (objectType, action, row) => {
          const [noun, e] = OBJECTS[objectType];
          const subject = `${noun} « ${row.title} »`;
          const summary =
            action === 'progress' ? `${subject} : progression ${row.progress} %` : `${subject} ${VERBS[action]}${e}`;
          const entry = { projectId: row.projectId, userId: user.id, action, objectType, objectId: row.id, summary };
          await access.record(tx, entry);
          entries.push(entry);
        },
        async (kind, { assigneeId = null, projectId, title }) => {
          notices.push(...(await notifier.assigned(tx, actor, { kind, assigneeId, projectId, title })));
        },
      ),
    );
    for (const e of entries) await auditProjectWrite(app, request, e);
    notifier.publish(notices);
    return result;
  };

  /**
   * Registers what every kind has: the paged list of the readable projects' objects (at most 100 a page), POST,
   * GET, PUT/PATCH and DELETE of one object, and update_progress for tasks and actions. Returns the loader.
   */
  function register<R extends Row, B extends TObject, V, F>(spec: WorkSpec<R, B, V, F>) {
    const { path, tags, reply, present, objectType, assigned } = spec;
    const item = `${path}:id/`;
    const load = gatedLoader(gate, spec.find);
    const idOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);
    const schema = (response: Record<number, TSchema>, ...errors: number[]) => ({
      tags,
      params: IdParams,
      response: replies.signedIn(response, 404, ...errors),
    });

    /** PUT, PATCH and update_progress: the gate, the parent kept, the kind's checks, activity and assignee. */
    const update = (request: FastifyRequest, values: V, parent: number | undefined, progress = false) =>
      write(request, async (tx, note, assign) => {
        const current = await load(request, tx, idOf(request), 'edit');
        const [key, parentOf, fixed] = spec.parent;
        if (parent !== undefined && parent !== parentOf(current)) throw fieldError(key, fixed);
        const row = await spec.update(tx, current, values);
        await note(objectType, progress ? 'progress' : 'updated', row);
        if (assigned && row.assigneeId !== current.assigneeId) await assign(assigned, row);
        return present(row, todayUtc());
      });

    const list = { tags, querystring: spec.query, response: replies.signedIn({ 200: Paged(reply) }, 400) };
    app.get(path, { ...guard.read, schema: list }, async (request) => {
      const errors = new FieldErrors();
      const query = request.query as RawQuery;
      const paging = parsePaging(errors, query, 100);
      const filters = spec.filters(errors, query);
      errors.throwIfAny();
      const today = todayUtc();
      const page = { limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
      const readable = access.readable(signedIn(request).actor);
      const { count, rows } = await request.tenantDb((tx) => spec.page(tx, readable, filters, today, page));
      const results = rows.map((row) => present(row, today));
      return pagedResponse(path, query, Object.keys(spec.query.properties), paging, count, results);
    });

    const created = replies.signedIn({ 201: reply }, 400, ...(spec.createErrors ?? []));
    app.post(path, { ...guard.write, schema: { tags, body: spec.body, response: created } }, async (request, res) => {
      const { parent, values } = spec.read(request.body as Static<B>, true, true);
      const row = await write(request, async (tx, note, assign) => {
        const row = await spec.create(request, tx, parent!, values);
        await note(objectType, 'created', row);
        if (assigned) await assign(assigned, row);
        return row;
      });
      return res.code(201).send(present(row, todayUtc()));
    });

    app.get(item, { ...guard.read, schema: schema({ 200: reply }) }, (request) =>
      request.tenantDb(async (tx) => present(await load(request, tx, idOf(request), 'read'), todayUtc())),
    );

    for (const method of ['put', 'patch'] as const) {
      const options = { ...guard.write, schema: { ...schema({ 200: reply }, 400), body: spec.body } };
      app[method](item, options, async (request) => {
        const { parent, values } = spec.read(request.body as Static<B>, method === 'put');
        return update(request, values, parent);
      });
    }

    if (assigned) {
      const options = { ...guard.write, schema: { ...schema({ 200: reply }, 400), body: ProgressBody } };
      app.post(`${item}update_progress/`, options, async (request) =>
        update(request, request.body as Static<typeof ProgressBody> as V, undefined, true),
      );
    }

    app.delete(item, { ...guard.write, schema: schema({ 204: NoContent }) }, async (request, res) => {
      await write(request, async (tx, note) => {
        const row = await load(request, tx, idOf(request), 'edit');
        if (!(await spec.remove(tx, row))) throw notFound();
        await note(objectType, 'deleted', row);
      });
      return res.code(204).send();
    });
    return load;
  }

  return {
    repo,
    gate,
    guard,
    write,
    register,
    checkReferences,
    /** The owner or assignee named must be a user of the tenant. */
    member: (field: string, tx: TenantDb, id: number | null | undefined) =>
      checkReferences([[field, id, (user) => repo.isTenantMember(tx, user), MESSAGES.userUnknown]]),
    /** The gate for a project named in a body: an unknown or invisible one is a field error, not a 404. */
    async requireNamed(request: FastifyRequest, tx: TenantDb, projectId: number, field: string, message: string) {
      try {
        return await gate.require(request, tx, projectId, 'edit');
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 404) throw fieldError(field, message);
        throw err;
      }
    },
  };
}
