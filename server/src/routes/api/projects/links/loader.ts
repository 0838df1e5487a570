/**
 * What the three kinds of project link (assets, findings, threats) share: the limits and messages, the body and
 * query pieces, and `linkRoutes`, which loads a link through its project's gate, runs writes with their activity
 * line and audit, and registers the routes every kind has (list, link-or-create, read, unlink).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { SEVERITIES } from '../../../../../../contract/severity.ts';
import type { TenantDb } from '../../../../db/tenant-scope.ts';
import { ApiError, FieldErrors, notFound } from '../../../../domain/errors.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import type { Actor } from '../../../../policies/index.ts';
import type { ActivityEntry } from '../../../../repositories/project-access.ts';
import {
  foreignKeyViolation,
  ProjectLinksRepository,
  type LinkPage,
  type LinkRef,
  type LinkType,
} from '../../../../repositories/project-links.ts';
import { uniqueViolation } from '../../../../repositories/tenant-users.ts';
import {
  IdParams,
  ListQuery,
  NoContent,
  OrNull as orNull,
  Paged,
  replies,
  type Static,
  type TSchema,
  Type,
  WriteBody as writeBody,
} from '../../../../schemas/common.ts';
import { auditProjectWrite, projectGate, quoted, type ProjectNeed } from '../access.ts';
import { accessGuards } from '../../shared.ts';
import { pagedResponse } from '../../../../presenters/paged.ts';
import { parseId, parsePaging, parseQueryId, type RawQuery } from '../../../../schemas/query.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** Every limit of the link routes, written once. */
export const LIMITS = {
  /** Largest page of a link list. */
  pageSize: 100,
  /** The findings and threats of one linked asset: a bare array, bounded so one huge scan cannot make a huge answer. */
  assetLists: 1000,
  /** Body sizes the schema refuses outright; the inventory's own, smaller limits are checked with their messages. */
  word: 64,
  text: 4096,
  longText: 100_000,
  protocol: 32,
  service: 200,
  /** The inventory's limits on a finding's and a threat's fields. */
  findingTitle: 500,
  threatTitle: 300,
  threatDescription: 20_000,
  threatShort: 200,
} as const;

export const MESSAGES = {
  projectRequired: 'Le projet est requis.',
  assetUnknown: 'Actif introuvable.',
  severity: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  cveInvalid: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
} as const;

export const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

/** An optional text of at most `max` characters (before trimming), or null too with `nullableText`. */
export const text = (max: number, errorMessage?: string) =>
  Type.Optional(Type.String({ maxLength: max, ...(errorMessage ? { errorMessage } : {}) }));
export const nullableText = (max: number) => Type.Optional(orNull<string>('string', { maxLength: max }));

/** An optional integer that may be null (a reference to another object, a port). */
export const nullableInt = () => Type.Optional(orNull<number>('integer'));

/**
 * POST body of a link: the project, the id of an existing object of the tenant to link, or the fields of a new one
 * (ignored when an id is given). With `reply`, the other fields of the link as read are accepted and ignored.
 */
export function linkBody<K extends string, F extends Record<string, TSchema>>(
  idField: K,
  fields: F,
  reply?: { properties: object },
) {
  const writable = {
    project: Type.Integer({ errorMessage: { required: MESSAGES.projectRequired } }),
    ...(Object.fromEntries([[idField, nullableInt()]]) as Record<K, ReturnType<typeof nullableInt>>),
    ...fields,
  };
  return reply ? writeBody(reply, writable) : Type.Object(writable, { additionalProperties: false });
}

/** What a link points at, as the activity names it. */
export interface Target {
  id: number;
  title: string;
}

/** A change made through a link, for the project's activity: its action and summary. */
export interface Change {
  action: string;
  summary: string;
}

type Done = Change & { projectId: number; linkId: number };

/** A link list's page, once the kind's filters are read. */
type PageOf<Row> = (
  tx: TenantDb,
  actor: Actor,
  paging: { projectId: number | undefined; limit: number; offset: number },
) => Promise<LinkPage<Row>>;

/** One kind of link: its path and wire schema, how it reads and creates its targets, and its wording. */
export interface LinkKind<Row, Out, Body extends TObject, Query extends TObject> {
  type: LinkType;
  path: string;
  tags: string[];
  schema: TSchema;
  present: (row: Row) => Out;
  /** One link with its target, as the answers show it. */
  row: (tx: TenantDb, linkId: number) => Promise<Row | undefined>;
  /** The body field naming an existing target, and the messages about it. */
  idField: string;
  unknown: string;
  alreadyLinked: string;
  /** "Actif « x » lié au projet", "Menace « x » liée au projet". */
  noun: string;
  feminine: boolean;
  body: Body;
  /** The tenant's existing target of this id. */
  find: (tx: TenantDb, id: number) => Promise<Target | undefined>;
  /** A new target made from the body (the gate has let the caller through). */
  create: (tx: TenantDb, body: Static<Body>, request: FastifyRequest) => Promise<Target>;
  /** The list's query; `list` reads the kind's own filters (French errors into `errors`) and returns the page. */
  query: Query;
  list: (errors: FieldErrors, query: RawQuery) => PageOf<Row>;
}

/** The paging and project filter every link list has, plus the kind's own filters. */
export const LinkQuery = <K extends string>(filters: Record<K, string>) =>
  ListQuery({ project: 'Identifiant du projet (sinon, les liens de tous les projets lisibles)', ...filters });

/**
 * Registers the routes every kind of link has (list, link-or-create, read, unlink) and returns the tools its own
 * routes use: `change` (a write through the link, with its activity) and `reach` (the link through the gate).
 */
export function linkRoutes<Row, Out, Body extends TObject, Query extends TObject>(
  app: App,
  kind: LinkKind<Row, Out, Body, Query>,
) {
  const guard = accessGuards(app);
  const gate = projectGate();
  const links = new ProjectLinksRepository();
  const { type, path, tags } = kind;
  const itemPath = `${path}:id/`;
  const e = kind.feminine ? 'e' : '';

  /** The link's project through the gate: 404 when the link or its project is out of reach. */
  const reach = async (request: FastifyRequest, tx: TenantDb, linkId: number, need: ProjectNeed): Promise<LinkRef> => {
    const ref = await links.ref(tx, type, linkId);
    if (!ref) throw notFound();
    await gate.require(request, tx, ref.projectId, need);
    return ref;
  };

  const entry = (request: FastifyRequest, done: Done): ActivityEntry => ({
    projectId: done.projectId,
    userId: signedIn(request).actor.userId,
    action: done.action,
    objectType: `project_${type}`,
    objectId: done.linkId,
    summary: done.summary,
  });

  /** Runs a write and its activity line in the tenant transaction, then audits it. */
  const write = async (request: FastifyRequest, fn: (tx: TenantDb) => Promise<Done | null>) => {
    const done = await request.tenantDb(async (tx) => {
      const out = await fn(tx);
      if (out) await gate.repo.record(tx, entry(request, out));
      return out;
    });
    if (done) await auditProjectWrite(app, request, entry(request, done));
    return done;
  };

  /** Links inside the transaction; a second link of the same object → 409 on the id field. */
  const linkOnce = async (tx: TenantDb, projectId: number, targetId: number) => {
    try {
      return await links.link(tx, type, projectId, targetId);
    } catch (err) {
      if (uniqueViolation(err) !== undefined) {
        throw new ApiError(409, 'duplicate', kind.alreadyLinked, { fields: { [kind.idField]: [kind.alreadyLinked] } });
      }
      // The composite foreign key refuses another tenant's id (already checked; a race lands here).
      if (foreignKeyViolation(err) !== undefined) throw invalid(kind.idField, kind.unknown);
      throw err;
    }
  };

  /** The link as the answers show it, read after the write committed. */
  const answer = async (request: FastifyRequest, linkId: number): Promise<Out> => {
    const row = await request.tenantDb((tx) => kind.row(tx, linkId));
    if (!row) throw notFound();
    return kind.present(row);
  };

  /** A change through the link (the gate's 'edit'): touches the link and records the activity when one is made. */
  const change = async (
    request: FastifyRequest,
    linkId: number,
    fn: (tx: TenantDb, ref: LinkRef) => Promise<Change | null>,
  ): Promise<Out> => {
    await write(request, async (tx) => {
      const ref = await reach(request, tx, linkId, 'edit');
      const done = await fn(tx, ref);
      if (!done) return null;
      await links.touch(tx, type, linkId);
      return { ...done, projectId: ref.projectId, linkId };
    });
    return answer(request, linkId);
  };

  app.get(
    path,
    {
      ...guard.read,
      schema: { tags, querystring: kind.query, response: replies.signedIn({ 200: Paged(kind.schema) }, 400) },
    },
    async (request) => {
      const q = request.query as RawQuery;
      const errors = new FieldErrors();
      const paging = parsePaging(errors, q, LIMITS.pageSize);
      const projectId = parseQueryId(errors, q, 'project');
      const page = kind.list(errors, q);
      errors.throwIfAny();
      const actor = signedIn(request).actor;
      const limit = paging.pageSize;
      const { count, rows } = await request.tenantDb((tx) =>
        page(tx, actor, { projectId, limit, offset: (paging.page - 1) * limit }),
      );
      return pagedResponse(path, q, Object.keys(kind.query.properties), paging, count, rows.map(kind.present));
    },
  );

  app.post(
    path,
    {
      ...guard.write,
      schema: { tags, body: kind.body, response: replies.signedIn({ 201: kind.schema }, 400, 404, 409) },
    },
    async (request, reply) => {
      const body = request.body as Static<Body> & { project: number };
      // Not a possible id: unknown, like any project the caller cannot see.
      const projectId = parseId(String(body.project));
      if (projectId === undefined) throw notFound();
      const chosen = (body as Record<string, unknown>)[kind.idField] as number | null | undefined;
      const done = await write(request, async (tx) => {
        await gate.require(request, tx, projectId, 'edit');
        // An id links the existing object (any other fields beside it are ignored); without one, the object is new.
        if (chosen !== undefined && chosen !== null) {
          const target = chosen >= 1 ? await kind.find(tx, chosen) : undefined;
          if (!target) throw invalid(kind.idField, kind.unknown);
          const linkId = await linkOnce(tx, projectId, target.id);
          const summary = `${kind.noun} ${quoted(target.title)} lié${e} au projet`;
          return { projectId, linkId, action: 'linked', summary };
        }
        const target = await kind.create(tx, body, request);
        const linkId = await linkOnce(tx, projectId, target.id);
        const summary = `${kind.noun} ${quoted(target.title)} créé${e} et lié${e} au projet`;
        return { projectId, linkId, action: 'created', summary };
      });
      return reply.code(201).send(await answer(request, done!.linkId));
    },
  );

  app.get(
    itemPath,
    { ...guard.read, schema: { tags, params: IdParams, response: replies.signedIn({ 200: kind.schema }, 404) } },
    async (request) => {
      const linkId = Number(request.params.id);
      const row = await request.tenantDb(async (tx) => {
        await reach(request, tx, linkId, 'read');
        return kind.row(tx, linkId);
      });
      if (!row) throw notFound();
      return kind.present(row);
    },
  );

  app.delete(
    itemPath,
    { ...guard.write, schema: { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) } },
    async (request, reply) => {
      const linkId = Number(request.params.id);
      await write(request, async (tx) => {
        const ref = await reach(request, tx, linkId, 'edit');
        const title = (await kind.find(tx, ref.targetId))?.title ?? `#${ref.targetId}`;
        if (!(await links.unlink(tx, type, linkId))) throw notFound();
        const summary = `${kind.noun} ${quoted(title)} retiré${e} du projet`;
        return { projectId: ref.projectId, linkId, action: 'unlinked', summary };
      });
      return reply.code(204).send();
    },
  );

  return { guard, tags, itemPath, links, reach, change };
}
