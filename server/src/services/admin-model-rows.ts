/**
 * The writes of the generic model administration (docs/api-admin.md "Models"): only the operations the allow-list
 * permits, references kept within one tenant, and the database's refusals of the input answered in French.
 * Every function takes the connection the route chose (the owner's for superusers, the tenant's otherwise).
 */
import type { Db } from '../db/client.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { AdminModelsRepository, type ModelRow } from '../repositories/admin-models.ts';
import { invalid } from '../schemas/fields.ts';
import { dbProblem, MODEL_MESSAGES, sameValue } from './admin-model-values.ts';
import { findAdminModel, type AdminModel, type ModelField, type ModelOperation } from './admin-models.ts';
import { selfChange } from './admin-users.ts';

const repo = new AdminModelsRepository();

const VERBS: Record<ModelOperation, string> = { create: 'Création', update: 'Modification', delete: 'Suppression' };
const METHODS: Record<ModelOperation, string> = { create: 'POST', update: 'PATCH', delete: 'DELETE' };

/** A body checked by parseModelBody: values by Drizzle property, and the fields given. */
export interface ModelInput {
  values: Record<string, unknown>;
  given: ModelField[];
}

/** The model a path names, or 404. */
export function modelNamed(name: string): AdminModel {
  const model = findAdminModel(name);
  if (!model) throw new ApiError(404, 'unknown_model', `Modèle inconnu : « ${name.slice(0, 100)} ».`);
  return model;
}

/** 405 for an operation this administration never does on the model, with where it is done instead. */
export function checkOperation(model: AdminModel, op: ModelOperation): void {
  if (model.operations.includes(op)) return;
  const onList = op === 'create';
  const allow = ['GET', ...model.operations.filter((o) => (o === 'create') === onList).map((o) => METHODS[o])];
  const reason = model.operations.length === 0 ? `le modèle « ${model.name} » est en lecture seule ici` : null;
  const detail = `${VERBS[op]} impossible : ${reason ?? `pas depuis l’administration des modèles pour « ${model.name} »`}${
    model.elsewhere ? ` (${model.elsewhere})` : ''
  }.`;
  throw new ApiError(405, 'read_only', detail, {}, { allow: allow.join(', ') });
}

/** The audit line of a tenant admin's write on a model reserved to superusers. */
export const reservedRefusal = (model: AdminModel, op: ModelOperation) =>
  `${VERBS[op]} refusée : le modèle ${model.name} est réservé aux superutilisateurs`;

/** A database refusal caused by the input, as its French 400/409; any other error as it is (a real 500). */
export function writeError(model: AdminModel, err: unknown, op: ModelOperation): unknown {
  const problem = err instanceof ApiError ? undefined : dbProblem(model, err);
  if (!problem) return err;
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
export function rowTenant(model: AdminModel, row: ModelRow): string | null {
  if (model.scope === 'tenant') return (row.tenant_id as string | null) ?? null;
  if (model.scope === 'tenant-row') return row.id as string;
  return null;
}

/** Every changed reference must name a row of the same tenant. */
async function checkReferences(db: Db, given: ModelField[], values: Record<string, unknown>, tenantId: string) {
  for (const field of given) {
    const value = values[field.key];
    if (!field.references || value === null || value === undefined) continue;
    const target = findAdminModel(field.references)!;
    if (!(await repo.referenceExists(db, target, value, tenantId))) {
      throw invalid(field.name, MODEL_MESSAGES.reference(field.name, value, target.label));
    }
  }
}

/** A new row; a tenant-scoped one goes to `tenantId`, which must name a live tenant. */
export async function createRow(
  db: Db,
  model: AdminModel,
  { values, given }: ModelInput,
  tenantId: string | undefined,
): Promise<ModelRow> {
  if (model.scope === 'tenant' && !tenantId) {
    throw invalid('tenant', 'Organisation requise : précisez ?tenant=<identifiant> ou l’en-tête X-Tenant-ID.');
  }
  const problem = model.crossCheck?.(Object.fromEntries(given.map((f) => [f.name, values[f.key]])));
  if (problem) throw invalid(...problem);
  if (tenantId === undefined) return repo.insert(db, model, values);
  if (!(await repo.liveTenant(db, tenantId))) throw invalid('tenant', 'Organisation introuvable.');
  await checkReferences(db, given, values, tenantId);
  return repo.insert(db, model, { ...values, tenantId });
}

/** Saves the fields whose value really changes; answers the row as saved and those fields. */
export async function updateRow(
  db: Db,
  model: AdminModel,
  key: unknown[],
  tenantId: string | undefined,
  { values, given }: ModelInput,
  actorId: number,
): Promise<{ row: ModelRow; changed: ModelField[] }> {
  const row = await repo.find(db, model, key, tenantId);
  if (!row) throw notFound();
  const changed = given.filter((f) => !sameValue(row[f.name], values[f.key]));
  if (changed.length === 0) return { row, changed };
  const guard = model.selfProtected;
  if (
    guard &&
    row[model.fields.find((f) => f.key === guard.ownerKey)!.name] === actorId &&
    changed.some((f) => guard.keys.includes(f.key))
  ) {
    throw selfChange();
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
}

/** Deletes a row; answers it as it was. */
export async function deleteRow(db: Db, model: AdminModel, key: unknown[], tenantId: string | undefined) {
  const row = await repo.find(db, model, key, tenantId);
  if (!row || !(await repo.remove(db, model, key, tenantId))) throw notFound();
  return row;
}
