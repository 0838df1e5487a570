import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../../../db/client.ts';
import { ApiError, notFound } from '../../../../domain/errors.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import {
  canAdministerModels,
  canReadAdminModel,
  canWriteAdminModel,
  seesEveryTenantsRows,
} from '../../../../policies/index.ts';
import {
  AdminModelSchema,
  modelRowId,
  ModelRowSchema,
  presentAdminModel,
  presentModelRow,
} from '../../../../presenters/admin-model.ts';
import { AdminModelsRepository, type ModelRow } from '../../../../repositories/admin-models.ts';
import { NoContent, replies, Type } from '../../../../schemas/common.ts';
import { dbProblem, MODEL_MESSAGES, parseModelBody, sameValue } from '../../../../services/admin-model-values.ts';
import {
  ADMIN_MODELS,
  findAdminModel,
  isTenantScoped,
  type AdminModel,
  type ModelField,
  type ModelOperation,
} from '../../../../services/admin-models.ts';
import { refuse } from '../shared.ts';
import {
  ModelListQuery,
  ModelParams,
  parseListQuery,
  parseRowId,
  parseTenantParam,
  RowParams,
  TenantQuery,
} from './schemas.ts';
import { type RawQuery } from '../../../../schemas/query.ts';

const BASE = '/api/admin/models/';
const MODEL_PATH = `${BASE}:model/`;
const ROW_PATH = `${BASE}:model/:id/`;

const unknownModel = (name: string) =>
  new ApiError(404, 'unknown_model', `Modèle inconnu : « ${name.slice(0, 100)} ».`);

const VERBS: Record<ModelOperation, string> = { create: 'Création', update: 'Modification', delete: 'Suppression' };
const METHODS: Record<ModelOperation, string> = { create: 'POST', update: 'PATCH', delete: 'DELETE' };

/** 405 for an operation this administration never does on the model, with where it is done instead. */
function notAllowed(model: AdminModel, op: ModelOperation): ApiError {
  const onList = op === 'create';
  const allow = ['GET', ...model.operations.filter((o) => (o === 'create') === onList).map((o) => METHODS[o])];
  const reason = model.operations.length === 0 ? `le modèle « ${model.name} » est en lecture seule ici` : null;
  const detail = `${VERBS[op]} impossible : ${reason ?? `pas depuis l’administration des modèles pour « ${model.name} »`}${
    model.elsewhere ? ` (${model.elsewhere})` : ''
  }.`;
  return new ApiError(405, 'read_only', detail, {}, { allow: allow.join(', ') });
}

function invalid(field: string, message: string): ApiError {
  return new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });
}

/** A database refusal caused by the input, as a French 400/409; undefined for anything else (a real 500). */
function refusal(model: AdminModel, err: unknown, op: ModelOperation): ApiError | undefined {
  const problem = dbProblem(model, err);
  if (!problem) return undefined;
  if (problem.kind === 'invalid') return new ApiError(400, 'invalid', MODEL_MESSAGES.invalidValue);
  if (problem.kind === 'foreign_key' && op === 'delete') {
    return new ApiError(409, 'referenced', MODEL_MESSAGES.stillReferenced);
  }
  const answers: Record<typeof problem.kind, [number, string, string, string]> = {
    unique: [409, 'duplicate', MODEL_MESSAGES.duplicate, MODEL_MESSAGES.duplicateField],
    foreign_key: [400, 'invalid_reference', MODEL_MESSAGES.foreignKey, MODEL_MESSAGES.foreignKey],
    check: [400, 'invalid', MODEL_MESSAGES.constraint, MODEL_MESSAGES.constraint],
    not_null: [400, 'invalid', MODEL_MESSAGES.required, MODEL_MESSAGES.required],
  };
  const [status, code, detail, message] = answers[problem.kind];
  const fields = Object.fromEntries(problem.fields.map((f) => [f, [message]]));
  return new ApiError(status, code, detail, problem.fields.length > 0 ? { fields } : {});
}

/** The tenant a row belongs to, for its audit line (null: the platform trail). */
function rowTenant(model: AdminModel, row: ModelRow): string | null {
  if (model.scope === 'tenant') return (row.tenant_id as string | null) ?? null;
  if (model.scope === 'tenant-row') return row.id as string;
  return null;
}

/**
 * Generic administration of the allow-listed models (docs/api-admin.md "Models"). Superusers work on the owner
 * connection with explicit tenant filters; a tenant admin's every call runs confined to their current tenant
 * (row-level security) and is filtered to it as well.
 */
const adminModels: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new AdminModelsRepository();
  // Authorization runs before anything else, so a refused caller always gets the 403 (and its audit line).
  const guarded = app.guard((auth) => canAdministerModels(auth.actor), {
    refusal: 'administration des modèles',
    tenant: false,
  });
  const tags = ['Modèles (administration)'];
  // Any JSON: parseModelBody checks it field by field, with the model's French messages.
  const body = Type.Unknown({ description: 'Les champs du modèle (voir GET /api/admin/models/)' });

  const operationsFor = (request: FastifyRequest, model: AdminModel): readonly ModelOperation[] =>
    canWriteAdminModel(signedIn(request).actor, model.writers) ? model.operations : [];

  /** The model named in the path, if this caller may read it. */
  const readable = async (request: FastifyRequest, name: string): Promise<AdminModel> => {
    const model = findAdminModel(name);
    if (!model) throw unknownModel(name);
    await app.authorize(
      request,
      canReadAdminModel(signedIn(request).actor, model.scope === 'platform'),
      `modèle ${model.name}`,
    );
    return model;
  };

  const writable = async (request: FastifyRequest, name: string, op: ModelOperation): Promise<AdminModel> => {
    const model = await readable(request, name);
    if (!model.operations.includes(op)) throw notAllowed(model, op);
    if (!canWriteAdminModel(signedIn(request).actor, model.writers)) {
      await refuse(app, request, `${VERBS[op]} refusée : le modèle ${model.name} est réservé aux superutilisateurs`);
    }
    return model;
  };

  /**
   * Whose rows: a superuser's are every tenant's unless ?tenant= names one; a tenant admin's are their current
   * tenant's (naming another tenant is refused). Undefined means "no tenant filter".
   */
  const rowsTenant = async (request: FastifyRequest, model: AdminModel): Promise<string | undefined> => {
    const requested = parseTenantParam(request.query as RawQuery);
    const auth = signedIn(request);
    if (seesEveryTenantsRows(auth.actor)) return isTenantScoped(model) ? requested : undefined;
    const current = auth.tenant!.id as string;
    const elsewhere = requested !== undefined && requested !== current;
    await app.authorize(request, !elsewhere, 'administration des modèles d’une autre organisation');
    return isTenantScoped(model) ? current : undefined;
  };

  /** Superusers on the owner connection; tenant admins confined to their tenant by row-level security. */
  const run = <T>(request: FastifyRequest, fn: (db: Db) => Promise<T>): Promise<T> =>
    seesEveryTenantsRows(signedIn(request).actor) ? app.database.db.transaction(fn) : request.tenantDb(fn);

  /** Runs a write, turning a database refusal caused by the input into its French 400/409. */
  const write = async <T>(
    request: FastifyRequest,
    model: AdminModel,
    op: ModelOperation,
    fn: (db: Db) => Promise<T>,
  ) => {
    try {
      return await run(request, fn);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw refusal(model, err, op) ?? err;
    }
  };

  /** Every changed reference must name a row of the same tenant. */
  const checkReferences = async (db: Db, given: ModelField[], values: Record<string, unknown>, tenantId: string) => {
    for (const field of given) {
      const value = values[field.key];
      if (!field.references || value === null || value === undefined) continue;
      const target = findAdminModel(field.references)!;
      if (!(await repo.referenceExists(db, target, value, tenantId))) {
        throw invalid(field.name, MODEL_MESSAGES.reference(field.name, value, target.label));
      }
    }
  };

  const record = (
    request: FastifyRequest,
    model: AdminModel,
    row: ModelRow,
    action: 'created' | 'updated' | 'deleted',
    changed: string[],
  ) => {
    const id = modelRowId(model, row);
    const verb = { created: 'créé', updated: 'modifié', deleted: 'supprimé' }[action];
    // Field names only, never values: a changed e-mail or flag is named, not copied into the trail.
    return app.audit.record(request, {
      eventType: 'data_change',
      description: `Administration des modèles : ${model.label} ${id} ${verb}`,
      severity: action === 'deleted' ? 'WARNING' : 'INFO',
      tenantId: rowTenant(model, row),
      extra: { action: `model_${action}`, model: model.name, object_id: id, changed },
    });
  };

  const Models = Type.Object({ models: Type.Array(AdminModelSchema) });
  app.get(BASE, { ...guarded, schema: { tags, response: replies.signedIn({ 200: Models }) } }, async (request) => ({
    models: ADMIN_MODELS.filter((m) => canReadAdminModel(signedIn(request).actor, m.scope === 'platform')).map((m) =>
      presentAdminModel(m, operationsFor(request, m)),
    ),
  }));

  const Page = Type.Object({
    results: Type.Array(ModelRowSchema),
    count: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    page_size: Type.Integer({ minimum: 1 }),
    pages: Type.Integer({ minimum: 1 }),
  });
  app.get(
    MODEL_PATH,
    {
      ...guarded,
      schema: {
        tags,
        params: ModelParams,
        querystring: ModelListQuery,
        response: replies.signedIn({ 200: Page }, 400, 404),
      },
    },
    async (request) => {
      const model = await readable(request, request.params.model);
      const options = parseListQuery(model, request.query);
      const tenantId = await rowsTenant(request, model);
      const { count, rows } = await run(request, (db) =>
        repo.page(db, model, {
          tenantId,
          search: options.search,
          ordering: options.ordering,
          limit: options.pageSize,
          offset: (options.page - 1) * options.pageSize,
        }),
      );
      return {
        results: rows.map((row) => presentModelRow(model, row)),
        count,
        page: options.page,
        page_size: options.pageSize,
        pages: Math.max(1, Math.ceil(count / options.pageSize)),
      };
    },
  );

  const rowSchema = (success: number, ...errors: number[]) => ({
    tags,
    params: RowParams,
    querystring: TenantQuery,
    response: replies.signedIn({ [success]: success === 204 ? NoContent : ModelRowSchema }, 400, 404, ...errors),
  });
  app.get(ROW_PATH, { ...guarded, schema: rowSchema(200) }, async (request) => {
    const model = await readable(request, request.params.model);
    const tenantId = await rowsTenant(request, model);
    const key = parseRowId(model, request.params.id);
    const row = key && (await run(request, (db) => repo.find(db, model, key, tenantId)));
    if (!row) throw notFound();
    return presentModelRow(model, row);
  });

  app.post(
    MODEL_PATH,
    {
      ...guarded,
      schema: {
        tags,
        params: ModelParams,
        querystring: TenantQuery,
        body,
        response: replies.signedIn({ 201: ModelRowSchema }, 400, 404, 405, 409),
      },
    },
    async (request, reply) => {
      const model = await writable(request, request.params.model, 'create');
      const { values, given } = parseModelBody(model, request.body, 'create');
      // A new tenant-scoped row goes to ?tenant= (superusers) or the current tenant.
      const named = await rowsTenant(request, model);
      const tenantId = model.scope === 'tenant' ? (named ?? signedIn(request).tenant?.id) : undefined;
      if (model.scope === 'tenant' && !tenantId) {
        throw invalid('tenant', 'Organisation requise : précisez ?tenant=<identifiant> ou l’en-tête X-Tenant-ID.');
      }
      const problem = model.crossCheck?.(Object.fromEntries(given.map((f) => [f.name, values[f.key]])));
      if (problem) throw invalid(...problem);
      const created = await write(request, model, 'create', async (db) => {
        if (tenantId !== undefined) {
          if (!(await repo.liveTenant(db, tenantId))) throw invalid('tenant', 'Organisation introuvable.');
          await checkReferences(db, given, values, tenantId);
        }
        return repo.insert(db, model, tenantId !== undefined ? { ...values, tenantId } : values);
      });
      await record(
        request,
        model,
        created,
        'created',
        given.map((f) => f.name),
      );
      return reply.code(201).send(presentModelRow(model, created));
    },
  );

  app.patch(ROW_PATH, { ...guarded, schema: { ...rowSchema(200, 405, 409), body } }, async (request) => {
    const model = await writable(request, request.params.model, 'update');
    const tenantId = await rowsTenant(request, model);
    const key = parseRowId(model, request.params.id);
    if (!key) throw notFound();
    const { values, given } = parseModelBody(model, request.body, 'update');
    const actor = signedIn(request).actor;
    const result = await write(request, model, 'update', async (db) => {
      const row = await repo.find(db, model, key, tenantId);
      if (!row) throw notFound();
      const changed = given.filter((f) => !sameValue(row[f.name], values[f.key]));
      if (changed.length === 0) return { row, changed };
      const guard = model.selfProtected;
      if (
        guard &&
        row[model.fields.find((f) => f.key === guard.ownerKey)!.name] === actor.userId &&
        changed.some((f) => guard.keys.includes(f.key))
      ) {
        throw new ApiError(
          400,
          'self_change',
          'Vous ne pouvez pas modifier votre propre rôle ou désactiver votre propre compte.',
        );
      }
      const merged = { ...row, ...Object.fromEntries(changed.map((f) => [f.name, values[f.key]])) };
      const problem = model.crossCheck?.(merged);
      if (problem) throw invalid(...problem);
      const owner = rowTenant(model, row);
      if (owner) await checkReferences(db, changed, values, owner);
      const set = Object.fromEntries(changed.map((f) => [f.key, values[f.key]]));
      if (model.touchColumn) set[model.touchColumn] = new Date();
      const updated = await repo.update(db, model, key, tenantId, set);
      if (!updated) throw notFound();
      return { row: updated, changed };
    });
    const names = result.changed.map((f) => f.name);
    if (names.length > 0) await record(request, model, result.row, 'updated', names);
    return presentModelRow(model, result.row);
  });

  app.delete(ROW_PATH, { ...guarded, schema: rowSchema(204, 405, 409) }, async (request, reply) => {
    const model = await writable(request, request.params.model, 'delete');
    const tenantId = await rowsTenant(request, model);
    const key = parseRowId(model, request.params.id);
    if (!key) throw notFound();
    const removed = await write(request, model, 'delete', async (db) => {
      const row = await repo.find(db, model, key, tenantId);
      if (!row || !(await repo.remove(db, model, key, tenantId))) throw notFound();
      return row;
    });
    await record(request, model, removed, 'deleted', []);
    return reply.code(204).send();
  });
};

export default adminModels;
