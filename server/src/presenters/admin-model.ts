import { fieldLabel } from '../../../contract/field-labels.ts';
import type { ModelRow } from '../repositories/admin-models.ts';
import { outgoingValue } from '../services/admin-model-values.ts';
import {
  FIELD_TYPES,
  isTenantScoped,
  type AdminModel,
  type ModelField,
  type ModelOperation,
} from '../services/admin-models.ts';
import { Choice, Type, type Static } from '../schemas/common.ts';

/** One field of a model's description on the wire. */
const ModelFieldSchema = Type.Object({
  name: Type.String(),
  label: Type.String({ description: 'Le nom du champ en français' }),
  type: Choice(FIELD_TYPES),
  required: Type.Boolean(),
  read_only: Type.Boolean(),
  create_only: Type.Optional(Type.Literal(true)),
  choices: Type.Optional(Type.Array(Type.String())),
  max_length: Type.Optional(Type.Integer()),
  max_items: Type.Optional(Type.Integer()),
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  references: Type.Optional(Type.String()),
});
type FieldOut = Static<typeof ModelFieldSchema>;

/** A model's description for its caller (GET /api/admin/models/). */
export const AdminModelSchema = Type.Object(
  {
    name: Type.String(),
    label: Type.String(),
    tenant_scoped: Type.Boolean(),
    read_only: Type.Boolean(),
    operations: Type.Array(Choice(['create', 'update', 'delete'] as const)),
    primary_key: Type.Array(Type.String()),
    fields: Type.Array(ModelFieldSchema),
  },
  { title: 'AdminModel' },
);

/** One row: the model's allow-listed fields, whatever they are. */
export const ModelRowSchema = Type.Record(Type.String(), Type.Unknown(), { title: 'ModelRow' });

function presentField(field: ModelField, modelReadOnly: boolean): FieldOut {
  const readOnly = modelReadOnly || field.readOnly;
  const out: FieldOut = {
    name: field.name,
    label: fieldLabel(field.name),
    type: field.type,
    required: !readOnly && field.required,
    read_only: readOnly,
  };
  if (!readOnly && field.createOnly) out.create_only = true;
  if (field.choices) out.choices = [...field.choices];
  if (field.maxLength !== undefined) out.max_length = field.maxLength;
  if (field.maxItems !== undefined) out.max_items = field.maxItems;
  if (field.declared.min !== undefined) out.min = field.declared.min;
  if (field.declared.max !== undefined) out.max = field.declared.max;
  if (field.references) out.references = field.references;
  return out;
}

/** A model's description for this caller: `operations` are what the caller may do besides reading. */
export function presentAdminModel(
  model: AdminModel,
  operations: readonly ModelOperation[],
): Static<typeof AdminModelSchema> {
  const readOnly = operations.length === 0;
  return {
    name: model.name,
    label: model.label,
    tenant_scoped: isTenantScoped(model),
    read_only: readOnly,
    operations: [...operations],
    primary_key: model.primaryKey.map((f) => f.name),
    fields: model.fields.map((f) => presentField(f, readOnly)),
  };
}

/** One row: exactly the allow-listed fields, in their listed order. */
export function presentModelRow(model: AdminModel, row: ModelRow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of model.fields) out[field.name] = outgoingValue(row[field.name]);
  return out;
}

/** The id of a row in the model's paths: its primary key, parts joined by ":" when there are several. */
export function modelRowId(model: AdminModel, row: ModelRow): string {
  return model.primaryKey.map((f) => String(outgoingValue(row[f.name]))).join(':');
}
