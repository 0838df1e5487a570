import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { messageOf } from '../../lib/error-message.ts';
import { session } from '../../lib/auth/session.ts';
import { isSuperuser } from './admin-access.ts';
import { NUMBER } from './format.ts';
import { useLoaded } from './load-state.ts';
import {
  createModelRow,
  deleteModelRow,
  fetchModelRows,
  fetchModels,
  rowId,
  updateModelRow,
  type AdminModel,
  type ModelField,
  type ModelPage,
  type ModelRow,
} from './models-api.ts';
import { displayValue, draftValue, modelBody, tableFields, writableFields, type FieldDraft } from './model-rules.ts';

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
  const label = `${field.name}${field.required ? ' *' : ''}`;
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
          {field.name}
        </label>
        {error && (
          <span id={`${id}-error`} className="vm-field-error">
            {error}
          </span>
        )}
      </div>
    );
  const text = String(value);
  return (
    <FormField id={id} label={label} error={error} wide={field.type === 'text' || field.type === 'json'}>
      {field.type === 'enum' ? (
        <select id={id} name={field.name} value={text} onChange={(e) => onChange(e.target.value)} {...aria}>
          {!field.required && <option value="">—</option>}
          {(field.choices ?? []).map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : field.type === 'text' || field.type === 'json' || field.type === 'array' ? (
        <textarea
          id={id}
          name={field.name}
          value={text}
          spellCheck={field.type === 'text'}
          onChange={(e) => onChange(e.target.value)}
          {...aria}
        />
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
            : field.type === 'date'
              ? { type: 'date' }
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
  const id = useId();
  const creating = !row;
  const editable = model.operations.includes(creating ? 'create' : 'update');
  const fields = editable ? writableFields(model, creating) : [];
  const [drafts, setDrafts] = useState<Record<string, FieldDraft>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, draftValue(f, row?.[f.name])])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const { body, errors: found } = modelBody(model, drafts, row);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    if (row && Object.keys(body).length === 0) {
      onClose();
      return;
    }
    setSending(true);
    try {
      const saved = row
        ? await updateModelRow(model.name, rowId(model, row), body)
        : await createModelRow(model.name, body, tenant);
      onSaved(saved, creating);
    } catch (err) {
      if (err instanceof ApiError) {
        setErrors(
          Object.fromEntries(
            Object.entries(err.fields)
              .filter(([, m]) => Array.isArray(m) && m[0])
              .map(([k, m]) => [k, m[0]!]),
          ),
        );
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const shown = new Set(fields.map((f) => f.name));
  const readOnly = row ? model.fields.filter((f) => !shown.has(f.name)) : [];
  const title = row ? `${model.label} n° ${rowId(model, row)}` : `Nouvel élément — ${model.label}`;
  return (
    <form className="card admin-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {title}
      </h2>
      {fields.length > 0 && (
        <div className="vm-form">
          {fields.map((f) => (
            <FieldControl
              key={f.name}
              field={f}
              id={`${id}-${f.name}`}
              value={drafts[f.name] ?? ''}
              error={errors[f.name]}
              onChange={(value) => setDrafts((d) => ({ ...d, [f.name]: value }))}
            />
          ))}
        </div>
      )}
      {readOnly.length > 0 && (
        <dl className="admin-dl">
          {readOnly.map((f) => (
            <div key={f.name}>
              <dt>{f.name}</dt>
              <dd className="admin-wrap">{displayValue(f, row?.[f.name])}</dd>
            </div>
          ))}
        </dl>
      )}
      <FormError error={error} />
      {fields.length > 0 ? (
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : creating ? 'Créer' : 'Enregistrer'}
          disabled={sending}
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

type Rows =
  { kind: 'loading' } | { kind: 'ok'; data: ModelPage; origin: DataOrigin } | { kind: 'failed'; error: string };
type Panel = { kind: 'create' } | { kind: 'edit'; row: ModelRow } | null;

/** Modèles: the server's allow-listed models, their rows paged by 10, and the generic editor. */
export default function ModelsPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const [params, setParams] = useSearchParams();
  const models = useLoaded(fetchModels);
  const list = models.kind === 'ok' ? models.data.models : [];
  const name = params.get('model') ?? list[0]?.name ?? '';
  const model = list.find((m) => m.name === name);
  const pageParam = Number(params.get('page'));
  const page = Number.isInteger(pageParam) && pageParam > 0 ? pageParam : 1;
  const q = params.get('q') ?? '';
  const tenant = superuser && model?.tenant_scoped ? (params.get('tenant') ?? '') : '';
  const [rows, setRows] = useState<Rows>({ kind: 'loading' });
  const [reload, setReload] = useState(0);
  const [panel, setPanel] = useState<Panel>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [search, setSearch] = useState(q);
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();

  const update = (changes: Record<string, string | number>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const v = String(value).trim();
          if (v === '' || (key === 'page' && v === '1')) next.delete(key);
          else next.set(key, v);
        }
        return next;
      },
      { replace: true },
    );

  useEffect(() => {
    if (!name) return;
    let live = true;
    fetchModelRows(name, { page, q, tenant }).then(
      (answer) => live && setRows({ kind: 'ok', ...answer }),
      (err: unknown) => live && setRows({ kind: 'failed', error: messageOf(err) }),
    );
    return () => {
      live = false;
    };
  }, [name, page, q, tenant, reload]);

  const columns = model ? tableFields(model) : [];
  const canUpdate = !!model?.operations.includes('update');
  const canDelete = !!model?.operations.includes('delete');

  return (
    <section className="admin-page">
      <div className="vm-head">
        <h1>Modèles</h1>
        {model?.operations.includes('create') && (
          <button type="button" className="btn primary" onClick={() => setPanel({ kind: 'create' })}>
            Nouvel élément
          </button>
        )}
      </div>
      {models.kind === 'loading' && <p role="status">Chargement des modèles…</p>}
      {models.kind === 'failed' && (
        <p className="error" role="alert">
          Impossible de charger les modèles : {models.error}
        </p>
      )}
      {models.kind === 'ok' && list.length === 0 && <EmptyState>Aucun modèle administrable.</EmptyState>}
      {model && (
        <>
          <div className="vm-toolbar" role="group" aria-label="Choisir et filtrer">
            <FilterSelect
              label="Modèle"
              value={name}
              options={list.map((m) => [m.name, m.label] as const)}
              onChange={(value) => {
                setPanel(null);
                setSearch('');
                setRows({ kind: 'loading' });
                update({ model: value, q: '', tenant: '' });
              }}
            />
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
            {superuser && model.tenant_scoped && (
              <label>
                Organisation (UUID)
                <input
                  defaultValue={tenant}
                  key={`${name}-${tenant}`}
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
                setReload((n) => n + 1);
              }}
            />
          )}
          <ActionMessages notice={notice} error={actionError} />
          {rows.kind === 'loading' && <p role="status">Chargement…</p>}
          {rows.kind === 'failed' && (
            <p className="error" role="alert">
              Impossible de charger « {model.label} » : {rows.error}
            </p>
          )}
          {rows.kind === 'ok' && (
            <>
              <DataOriginNote origin={rows.origin} />
              <p className="muted">
                {rows.data.count === 1 ? '1 élément' : `${NUMBER.format(rows.data.count)} éléments`}
              </p>
              {rows.data.results.length === 0 ? (
                <EmptyState>{q ? 'Aucun élément ne correspond.' : 'Aucun élément.'}</EmptyState>
              ) : (
                <div className="table-wrap" role="region" tabIndex={0} aria-label={model.label}>
                  <table className="table">
                    <thead>
                      <tr>
                        {columns.map((f) => (
                          <th key={f.name} scope="col">
                            {f.name}
                          </th>
                        ))}
                        <th scope="col">Actions</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.data.results.map((row) => {
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
                                      setReload((n) => n + 1);
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
                    </tbody>
                  </table>
                </div>
              )}
              <Pager
                label={`Pages de ${model.label}`}
                page={rows.data.page}
                pages={rows.data.pages}
                onPage={(p) => update({ page: p })}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
