import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FieldError, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { Select } from '../../components/select.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { DateInput } from '../../components/date-input.tsx';
import { session } from '../../lib/auth/session.ts';
import { fieldErrorsOf, useForm } from '../../lib/use-form.ts';
import { useListQuery, usePagedList } from '../../lib/use-paged-list.ts';
import { useResource } from '../../lib/use-resource.ts';
import { isSuperuser } from '../../lib/auth/admin-access.ts';
import { NUMBER } from './format.ts';
import {
  createModelRow,
  deleteModelRow,
  fetchModelRows,
  fetchModels,
  rowId,
  updateModelRow,
  type AdminModel,
  type ModelField,
  type ModelRow,
} from './models-api.ts';
import { displayValue, draftValue, modelBody, tableFields, writableFields, type FieldDraft } from './model-rules.ts';

/** A field's French name, as the server sends it. */
const labelOf = (field: ModelField): string => field.label ?? field.name;

const TYPE_HINTS: Partial<Record<ModelField['type'], string>> = {
  array: 'Un élément par ligne.',
  json: 'Au format JSON.',
  datetime: 'ISO 8601 avec fuseau, par exemple 2026-05-04T09:12:00Z.',
  uuid: 'Identifiant UUID.',
};

function FieldControl({
  field,
  id,
  value,
  error,
  onChange,
}: {
  field: ModelField;
  id: string;
  value: FieldDraft;
  error: string | undefined;
  onChange: (value: FieldDraft) => void;
}) {
  const aria = errorAria(`${id}-error`, error);
  const label = `${labelOf(field)}${field.required ? ' *' : ''}`;
  const hint =
    TYPE_HINTS[field.type] ?? (field.references ? `Identifiant d’un élément de « ${field.references} ».` : '');
  if (field.type === 'boolean')
    return (
      <div className="vm-field">
        <label className="vm-check" htmlFor={id}>
          <input
            id={id}
            name={field.name}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
            {...aria}
          />
          {labelOf(field)}
        </label>
        <FieldError id={`${id}-error`} error={error} />
      </div>
    );
  const text = String(value);
  return (
    <FormField id={id} label={label} error={error} wide={field.type === 'text' || field.type === 'json'}>
      {field.type === 'enum' ? (
        <Select
          id={id}
          name={field.name}
          value={text}
          empty={field.required ? undefined : '—'}
          options={(field.choices ?? []).map((c) => [c, c] as const)}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
      ) : field.type === 'text' || field.type === 'json' || field.type === 'array' ? (
        <textarea
          id={id}
          name={field.name}
          value={text}
          spellCheck={field.type === 'text'}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
      ) : field.type === 'date' ? (
        <DateInput id={id} name={field.name} value={text} onValue={onChange} {...aria} />
      ) : (
        <input
          id={id}
          name={field.name}
          value={text}
          {...(field.type === 'integer' || field.type === 'number'
            ? {
                type: 'number',
                step: field.type === 'integer' ? 1 : 'any',
                ...(field.min !== undefined ? { min: field.min } : {}),
                ...(field.max !== undefined ? { max: field.max } : {}),
              }
            : field.max_length !== undefined
              ? { maxLength: field.max_length }
              : {})}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
      )}
      {hint && <span className="muted admin-help">{hint}</span>}
    </FormField>
  );
}

/** Create (no `row`) or edit a row: writable fields as typed controls, the others shown read-only. */
export function ModelEditor({
  model,
  row,
  tenant,
  onSaved,
  onClose,
}: {
  model: AdminModel;
  row?: ModelRow | undefined;
  tenant?: string | undefined;
  onSaved: (row: ModelRow, created: boolean) => void;
  onClose: () => void;
}) {
  const creating = !row;
  const editable = model.operations.includes(creating ? 'create' : 'update');
  const fields = editable ? writableFields(model, creating) : [];
  const form = useForm<Record<string, FieldDraft>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, draftValue(f, row?.[f.name])])),
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const send = async (drafts: Record<string, FieldDraft>) => {
    const { body } = modelBody(model, drafts, row);
    if (row && Object.keys(body).length === 0) return onClose();
    const saved = row
      ? await updateModelRow(model.name, rowId(model, row), body)
      : await createModelRow(model.name, body, tenant);
    onSaved(saved, creating);
  };

  const shown = new Set(fields.map((f) => f.name));
  const readOnly = row ? model.fields.filter((f) => !shown.has(f.name)) : [];
  const title = row ? `${model.label} n° ${rowId(model, row)}` : `Nouvel élément — ${model.label}`;
  return (
    <form
      className="card admin-form"
      onSubmit={form.onSubmit(send, {
        validate: (drafts) => modelBody(model, drafts, row).errors,
        fieldErrors: (err) => fieldErrorsOf(err),
      })}
      noValidate
      aria-labelledby={`${form.id}-title`}
    >
      <h2 id={`${form.id}-title`} tabIndex={-1} ref={heading}>
        {title}
      </h2>
      {fields.length > 0 && (
        <div className="vm-form">
          {fields.map((f) => (
            <FieldControl
              key={f.name}
              field={f}
              id={`${form.id}-${f.name}`}
              value={form.values[f.name] ?? ''}
              error={form.errors[f.name]}
              onChange={(value) => form.set(f.name, value)}
            />
          ))}
        </div>
      )}
      {readOnly.length > 0 && (
        <dl className="admin-dl">
          {readOnly.map((f) => (
            <div key={f.name}>
              <dt>{labelOf(f)}</dt>
              <dd className="admin-wrap">{displayValue(f, row?.[f.name])}</dd>
            </div>
          ))}
        </dl>
      )}
      <FormError error={form.error} />
      {fields.length > 0 ? (
        <FormActions
          submitLabel={form.submitting ? 'Enregistrement…' : creating ? 'Créer' : 'Enregistrer'}
          disabled={form.submitting}
          closeLabel="Annuler"
          onClose={onClose}
        />
      ) : (
        <button type="button" className="btn secondary" onClick={onClose}>
          Fermer
        </button>
      )}
    </form>
  );
}

/** Modèles: the server's allow-listed models, their rows paged by 10, and the generic editor. */
export default function ModelsPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const models = useResource(async () => {
    const { models: list, origin } = await fetchModels();
    return { data: list, origin };
  }, []);
  const list = models.data ?? [];
  const [query, update] = useListQuery({ model: '', q: '', tenant: '' });
  const name = query.model || list[0]?.name || '';
  const model = list.find((m) => m.name === name);

  return (
    <section className="admin-page">
      {!model && <h1>Modèles</h1>}
      {models.loading && <p role="status">Chargement des modèles…</p>}
      {models.state.status === 'error' && (
        <ActionMessages error={`Impossible de charger les modèles : ${models.state.message}`} />
      )}
      {models.state.status === 'ready' && list.length === 0 && <EmptyState>Aucun modèle administrable.</EmptyState>}
      {model && (
        <ModelRows
          key={model.name}
          model={model}
          superuser={superuser}
          choice={
            <FilterSelect
              label="Modèle"
              value={name}
              options={list.map((m) => [m.name, m.label] as const)}
              onChange={(value) => update({ model: value, q: '', tenant: '' })}
            />
          }
        />
      )}
    </section>
  );
}

type Panel = { kind: 'create' } | { kind: 'edit'; row: ModelRow } | null;

/** One model's rows (search and page in the URL), its editor and its deletions. */
function ModelRows({
  model,
  superuser,
  choice,
}: {
  model: AdminModel;
  superuser: boolean;
  /** The model picker, first in the toolbar. */
  choice: ReactNode;
}) {
  const scoped = superuser && model.tenant_scoped;
  const { query, update, list } = usePagedList({
    filters: { q: '', tenant: '' },
    load: ({ page, q, tenant }) => fetchModelRows(model.name, { page, q, tenant: scoped ? tenant : '' }),
    pages: (data) => data.pages,
  });
  const { q } = query;
  const tenant = scoped ? query.tenant : '';
  const [panel, setPanel] = useState<Panel>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [search, setSearch] = useState(q);
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();
  const reload = () => void list.refresh();

  const columns = tableFields(model);
  const canUpdate = model.operations.includes('update');
  const canDelete = model.operations.includes('delete');
  const rows = list.data;

  return (
    <>
      <div className="vm-head">
        <h1>Modèles</h1>
        {model.operations.includes('create') && (
          <button type="button" className="btn primary" onClick={() => setPanel({ kind: 'create' })}>
            Nouvel élément
          </button>
        )}
      </div>
      <div className="vm-toolbar" role="group" aria-label="Choisir et filtrer">
        {choice}
        <form
          role="search"
          className="admin-inline-form"
          aria-label={`Rechercher dans ${model.label}`}
          onSubmit={(e) => {
            e.preventDefault();
            update({ q: search });
          }}
        >
          <label>
            Rechercher
            <input type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} />
          </label>
          <button type="submit" className="btn secondary">
            Rechercher
          </button>
        </form>
        {scoped && (
          <label>
            Organisation (UUID)
            <input
              defaultValue={tenant}
              key={tenant}
              placeholder="Toutes"
              onBlur={(e) => update({ tenant: e.target.value })}
            />
          </label>
        )}
      </div>
      {model.read_only && <p className="muted">Lecture seule : ce modèle se gère depuis son propre écran.</p>}
      {panel && (
        <ModelEditor
          key={panel.kind === 'edit' ? rowId(model, panel.row) : 'new'}
          model={model}
          row={panel.kind === 'edit' ? panel.row : undefined}
          tenant={tenant || undefined}
          onClose={() => setPanel(null)}
          onSaved={(saved, created) => {
            setPanel(null);
            setNotice(created ? `Élément n° ${rowId(model, saved)} créé.` : 'Modifications enregistrées.');
            reload();
          }}
        />
      )}
      <ActionMessages notice={notice} error={actionError} />
      {!rows && !list.error && <p role="status">Chargement…</p>}
      {list.state.status === 'error' && (
        <ActionMessages error={`Impossible de charger « ${model.label} » : ${list.state.message}`} />
      )}
      {rows && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted">{rows.count === 1 ? '1 élément' : `${NUMBER.format(rows.count)} éléments`}</p>
          {rows.results.length === 0 ? (
            <EmptyState>{q ? 'Aucun élément ne correspond.' : 'Aucun élément.'}</EmptyState>
          ) : (
            <DataTable region={model.label} headers={columns.map(labelOf)} actions>
              {rows.results.map((row) => {
                const id = rowId(model, row);
                const open = (
                  <RowAction
                    action={canUpdate ? 'edit' : 'view'}
                    text={canUpdate ? 'Modifier' : 'Voir'}
                    name={`n° ${id}`}
                    onClick={() => setPanel({ kind: 'edit', row })}
                  />
                );
                return (
                  <tr key={id} data-row-id={id}>
                    {columns.map((f) => (
                      <td key={f.name}>{displayValue(f, row[f.name])}</td>
                    ))}
                    <td>
                      {canDelete ? (
                        <DeletableRowActions
                          name={`n° ${id}`}
                          question="Supprimer cet élément ?"
                          confirming={confirming === id}
                          busy={busy === id}
                          onAsk={() => setConfirming(id)}
                          onCancel={() => setConfirming(null)}
                          onConfirm={() =>
                            void run(id, async () => {
                              await deleteModelRow(model.name, id);
                              setConfirming(null);
                              setNotice(`Élément n° ${id} supprimé.`);
                              reload();
                            })
                          }
                        >
                          {open}
                        </DeletableRowActions>
                      ) : (
                        <div className="vm-actions">{open}</div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </DataTable>
          )}
          <Pager
            label={`Pages de ${model.label}`}
            page={rows.page}
            pages={rows.pages}
            onPage={(p) => update({ page: p })}
          />
        </>
      )}
    </>
  );
}
