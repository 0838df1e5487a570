import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../../../db/client.ts';
import { notFound } from '../../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../../plugins/app/authorization.ts';
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
import {
  ModelListQuery,
  ModelParams,
  parseListQuery,
  parseRowId,
  parseTenantParam,
  RowParams,
  TenantQuery,
} from '../../../../schemas/admin/models.ts';
import { NoContent, replies, Type } from '../../../../schemas/common.ts';
import type { RawQuery } from '../../../../schemas/query.ts';
import {
  checkOperation,
  createRow,
  deleteRow,
  modelNamed,
  reservedRefusal,
  rowTenant,
  updateRow,
  writeError,
} from '../../../../services/admin-model-rows.ts';
import { parseModelBody } from '../../../../services/admin-model-values.ts';
import {
  ADMIN_MODELS,
  isTenantScoped,
  type AdminModel,
  type ModelOperation,
} from '../../../../services/admin-models.ts';

const BASE = '/api/admin/models/';
const MODEL_PATH = `${BASE}:model/`;
const ROW_PATH = `${BASE}:model/:id/`;

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
    const model = modelNamed(name);
    await app.authorize(
      request,
      canReadAdminModel(signedIn(request).actor, model.scope === 'platform'),
      `modèle ${model.name}`,
    );
    return model;
  };

  const writable = async (request: FastifyRequest, name: string, op: ModelOperation): Promise<AdminModel> => {
    const model = await readable(request, name);
    checkOperation(model, op);
    await app.authorize(request, canWriteAdminModel(signedIn(request).actor, model.writers), {
      audit: reservedRefusal(model, op),
    });
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
    const current: string = currentTenant(request);
    const elsewhere = requested !== undefined && requested !== current;
    await app.authorize(request, !elsewhere, 'administration des modèles d’une autre organisation');
    return isTenantScoped(model) ? current : undefined;
  };

  /** The row a path names: its model (readable, or writable for `op`), whose rows, and its key (else 404). */
  const rowOf = async (request: FastifyRequest, params: { model: string; id: string }, op?: ModelOperation) => {
    const model = op ? await writable(request, params.model, op) : await readable(request, params.model);
    const tenantId = await rowsTenant(request, model);
    const key = parseRowId(model, params.id);
    if (!key) throw notFound();
    return { model, tenantId, key };
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
      throw writeError(model, err, op);
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
      const { page, pageSize, search, ordering } = parseListQuery(model, request.query);
      const tenantId = await rowsTenant(request, model);
      const { count, rows } = await run(request, (db) =>
        repo.page(db, model, { tenantId, search, ordering, limit: pageSize, offset: (page - 1) * pageSize }),
      );
      return {
        results: rows.map((row) => presentModelRow(model, row)),
        count,
        page,
        page_size: pageSize,
        pages: Math.max(1, Math.ceil(count / pageSize)),
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
    const { model, tenantId, key } = await rowOf(request, request.params);
    const row = await run(request, (db) => repo.find(db, model, key, tenantId));
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
      const input = parseModelBody(model, request.body, 'create');
      // A new tenant-scoped row goes to ?tenant= (superusers) or the current tenant.
      const named = await rowsTenant(request, model);
      const tenantId = model.scope === 'tenant' ? (named ?? signedIn(request).tenant?.id) : undefined;
      const created = await write(request, model, 'create', (db) => createRow(db, model, input, tenantId));
      await record(
        request,
        model,
        created,
        'created',
        input.given.map((f) => f.name),
      );
      return reply.code(201).send(presentModelRow(model, created));
    },
  );

  app.patch(ROW_PATH, { ...guarded, schema: { ...rowSchema(200, 405, 409), body } }, async (request) => {
    const { model, tenantId, key } = await rowOf(request, request.params, 'update');
    const input = parseModelBody(model, request.body, 'update');
    const actorId = signedIn(request).actor.userId;
    const { row, changed } = await write(request, model, 'update', (db) =>
      updateRow(db, model, key, tenantId, input, actorId),
    );
    const names = changed.map((f) => f.name);
    if (names.length > 0) await record(request, model, row, 'updated', names);
    return presentModelRow(model, row);
  });

  app.delete(ROW_PATH, { ...guarded, schema: rowSchema(204, 405, 409) }, async (request, reply) => {
    const { model, tenantId, key } = await rowOf(request, request.params, 'delete');
    const removed = await write(request, model, 'delete', (db) => deleteRow(db, model, key, tenantId));
    await record(request, model, removed, 'deleted', []);
    return reply.code(204).send();
  });
};

export default adminModels;
