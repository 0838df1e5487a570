import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Db } from '../../../../db/client.ts';
import { ApiError } from '../../../../domain/errors.ts';
import {
  canAdministerModels,
  canReadAdminModel,
  canWriteAdminModel,
  FORBIDDEN_MESSAGE,
  seesEveryTenantsRows,
} from '../../../../policies/index.ts';
import { modelRowId, presentAdminModel, presentModelRow } from '../../../../presenters/admin-model.ts';
import { AdminModelsRepository, type ModelRow } from '../../../../repositories/admin-models.ts';
import { dbProblem, MODEL_MESSAGES, parseModelBody, sameValue } from '../../../../services/admin-model-values.ts';
import {
  ADMIN_MODELS,
  findAdminModel,
  isTenantScoped,
  type AdminModel,
  type ModelField,
  type ModelOperation,
} from '../../../../services/admin-models.ts';
import type { RawQuery } from '../../shared.ts';
import {
  listQuery,
  modelParams,
  parseListQuery,
  parseRowId,
  parseTenantParam,
  rowParams,
  tenantQuery,
  type ModelParams,
  type RowParams,
} from './schemas.ts';

const BASE = '/api/admin/models/';
const MODEL_PATH = `${BASE}:model/`;
const ROW_PATH = `${BASE}:model/:id/`;

const notFound = () => new ApiError(404, 'not_found', 'Ressource introuvable.');
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
  const on = (fields: string[], message: string) =>
    fields.length > 0 ? { fields: Object.fromEntries(fields.map((f) => [f, [message]])) } : {};
  switch (problem.kind) {
    case 'unique':
      return new ApiError(
        409,
        'duplicate',
        MODEL_MESSAGES.duplicate,
        on(problem.fields, MODEL_MESSAGES.duplicateField),
      );
    case 'foreign_key':
      return op === 'delete'
        ? new ApiError(409, 'referenced', MODEL_MESSAGES.stillReferenced)
        : new ApiError(
            400,
            'invalid_reference',
            MODEL_MESSAGES.foreignKey,
            on(problem.fields, MODEL_MESSAGES.foreignKey),
          );
    case 'check':
      return new ApiError(400, 'invalid', MODEL_MESSAGES.constraint, on(problem.fields, MODEL_MESSAGES.constraint));
    case 'not_null':
      return new ApiError(400, 'invalid', MODEL_MESSAGES.required, on(problem.fields, MODEL_MESSAGES.required));
    case 'invalid':
      return new ApiError(400, 'invalid', MODEL_MESSAGES.invalidValue);
  }
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
const adminModels: FastifyPluginAsync = async (app) => {
  const repo = new AdminModelsRepository();

  const deny = async (request: FastifyRequest, description: string): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description,
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  const requireAdmin = async (request: FastifyRequest) => {
    if (!canAdministerModels(request.auth!.actor)) await deny(request, 'Accès refusé : administration des modèles');
  };
  // Authorization runs before anything else, so a refused caller always gets the 403 (and its audit line).
  const guarded = { preValidation: [app.authenticate, requireAdmin] };

  const operationsFor = (request: FastifyRequest, model: AdminModel): readonly ModelOperation[] =>
    canWriteAdminModel(request.auth!.actor, model.writers) ? model.operations : [];

  /** The model named in the path, if this caller may read it. */
  const readable = async (request: FastifyRequest, name: string): Promise<AdminModel> => {
    const model = findAdminModel(name);
    if (!model) throw unknownModel(name);
    if (!canReadAdminModel(request.auth!.actor, model.scope === 'platform')) {
      await deny(request, `Accès refusé : modèle ${model.name}`);
    }
    return model;
  };

  const writable = async (request: FastifyRequest, name: string, op: ModelOperation): Promise<AdminModel> => {
    const model = await readable(request, name);
    if (!model.operations.includes(op)) throw notAllowed(model, op);
    if (!canWriteAdminModel(request.auth!.actor, model.writers)) {
      await deny(request, `${VERBS[op]} refusée : le modèle ${model.name} est réservé aux superutilisateurs`);
    }
    return model;
  };

  /**
   * Whose rows: a superuser's are every tenant's unless ?tenant= names one; a tenant admin's are their current
   * tenant's (naming another tenant is refused). Undefined means "no tenant filter".
   */
  const rowsTenant = async (request: FastifyRequest, model: AdminModel): Promise<string | undefined> => {
    const requested = parseTenantParam(request.query as RawQuery);
    const auth = request.auth!;
    if (seesEveryTenantsRows(auth.actor)) return isTenantScoped(model) ? requested : undefined;
    const current = auth.tenant!.id as string;
    if (requested !== undefined && requested !== current) {
      await deny(request, 'Accès refusé : administration des modèles d’une autre organisation');
    }
    return isTenantScoped(model) ? current : undefined;
  };

  /** Superusers on the owner connection; tenant admins confined to their tenant by row-level security. */
  const run = <T>(request: FastifyRequest, fn: (db: Db) => Promise<T>): Promise<T> =>
    seesEveryTenantsRows(request.auth!.actor) ? app.database.db.transaction(fn) : request.tenantDb(fn);

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

  app.get(BASE, guarded, async (request) => ({
    models: ADMIN_MODELS.filter((m) => canReadAdminModel(request.auth!.actor, m.scope === 'platform')).map((m) =>
      presentAdminModel(m, operationsFor(request, m)),
    ),
  }));

  app.get<{ Params: ModelParams; Querystring: RawQuery }>(
    MODEL_PATH,
    { ...guarded, schema: { params: modelParams, querystring: listQuery } },
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

  app.get<{ Params: RowParams; Querystring: RawQuery }>(
    ROW_PATH,
    { ...guarded, schema: { params: rowParams, querystring: tenantQuery } },
    async (request) => {
      const model = await readable(request, request.params.model);
      const tenantId = await rowsTenant(request, model);
      const key = parseRowId(model, request.params.id);
      const row = key && (await run(request, (db) => repo.find(db, model, key, tenantId)));
      if (!row) throw notFound();
      return presentModelRow(model, row);
    },
  );

  app.post<{ Params: ModelParams; Querystring: RawQuery }>(
    MODEL_PATH,
    { ...guarded, schema: { params: modelParams, querystring: tenantQuery } },
    async (request, reply) => {
      const model = await writable(request, request.params.model, 'create');
      const { values, given } = parseModelBody(model, request.body, 'create');
      // A new tenant-scoped row goes to ?tenant= (superusers) or the current tenant.
      const named = await rowsTenant(request, model);
      const tenantId = model.scope === 'tenant' ? (named ?? request.auth!.tenant?.id) : undefined;
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

  app.patch<{ Params: RowParams; Querystring: RawQuery }>(
    ROW_PATH,
    { ...guarded, schema: { params: rowParams, querystring: tenantQuery } },
    async (request) => {
      const model = await writable(request, request.params.model, 'update');
      const tenantId = await rowsTenant(request, model);
      const key = parseRowId(model, request.params.id);
      if (!key) throw notFound();
      const { values, given } = parseModelBody(model, request.body, 'update');
      const actor = request.auth!.actor;
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
    },
  );

  app.delete<{ Params: RowParams; Querystring: RawQuery }>(
    ROW_PATH,
    { ...guarded, schema: { params: rowParams, querystring: tenantQuery } },
    async (request, reply) => {
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
    },
  );
};

export default adminModels;
