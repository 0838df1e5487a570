import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { TypedConfirm } from '../../components/typed-confirm.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { session } from '../../lib/auth/session.ts';
import { useResource } from '../../lib/use-resource.ts';
import { isSuperuser } from '../../lib/auth/admin-access.ts';
import { deleteTenant, fetchTenants, restoreTenant, type Tenant, type TenantList } from './admin-api.ts';
import { TenantForm } from './tenant-form.tsx';
import { confirmsDomain, PLAN_LABELS, TENANT_STATUS_LABELS } from './tenant-rules.ts';
import { formatDate, NUMBER } from './format.ts';

/** What each spec §8 fallback step means for the administrator reading the list. */
const SOURCE_NOTES: Partial<Record<TenantList['source'], string>> = {
  'fallback-path':
    'La liste d’administration est indisponible : liste de secours (/tenants/), limitée aux organisations visibles par votre compte.',
  'local-cache': 'La liste d’administration est indisponible : dernière liste enregistrée sur cet appareil.',
  sample: 'La liste d’administration est indisponible : organisations d’exemple, fictives — aucune action possible.',
  memory: 'La liste d’administration est indisponible : dernière liste lue pendant cette session.',
  empty: 'La liste d’administration est indisponible et aucune copie locale n’existe.',
};

/** The typed confirmation of a soft delete: the tenant's domain, as the server asks. */
export function TenantDeleteConfirm({
  tenant,
  onDone,
  onCancel,
}: {
  tenant: Tenant;
  onDone: () => void;
  onCancel: () => void;
}) {
  return (
    <TypedConfirm
      title={`Supprimer « ${tenant.name} »`}
      fieldLabel="Domaine de l’organisation"
      matches={(typed) => confirmsDomain(typed, tenant.domain)}
      confirmLabel="Supprimer définitivement de la liste"
      busyLabel="Suppression…"
      confirm={async (typed) => {
        await deleteTenant(tenant.id, typed);
        onDone();
      }}
      onCancel={onCancel}
    >
      L’organisation disparaît des connexions et des listes ; ses données restent récupérables par un superutilisateur
      (restauration). Pour confirmer, saisissez son domaine <strong>{tenant.domain}</strong>.
    </TypedConfirm>
  );
}

type Panel = { kind: 'create' } | { kind: 'edit'; tenant: Tenant } | { kind: 'delete'; tenant: Tenant } | null;

/** Organisations: the spec §8 list with its fallbacks, the editor, the typed-confirmation delete and the restore. */
export default function TenantsPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const [params, setParams] = useSearchParams();
  const includeDeleted = superuser && params.get('deleted') === '1';
  const q = (params.get('q') ?? '').trim().toLowerCase();
  const tenants = useResource(async () => ({ data: await fetchTenants({ includeDeleted }) }), [includeDeleted], {
    keepPrevious: true,
  });
  const list = tenants.data ?? null;
  const reload = () => void tenants.refresh();
  const [panel, setPanel] = useState<Panel>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();

  const setParam = (key: string, value: string) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  // Fictional rows cannot be written; cached ones can, the server says whether they still exist.
  const writable = !!list && list.source !== 'sample' && list.source !== 'empty';
  const rows = (list?.data ?? []).filter(
    (t) => !q || t.name.toLowerCase().includes(q) || t.domain.toLowerCase().includes(q),
  );
  const note = list ? SOURCE_NOTES[list.source] : undefined;

  return (
    <section className="admin-page">
      <div className="vm-head">
        <h1>Organisations</h1>
        {superuser && (
          <button type="button" className="btn primary" onClick={() => setPanel({ kind: 'create' })}>
            Nouvelle organisation
          </button>
        )}
      </div>
      <div className="vm-toolbar" role="group" aria-label="Filtrer les organisations">
        <label>
          Rechercher
          <input
            type="search"
            defaultValue={params.get('q') ?? ''}
            onChange={(e) => setParam('q', e.target.value.trim())}
          />
        </label>
        {superuser && (
          <label className="vm-check">
            <input
              type="checkbox"
              checked={includeDeleted}
              onChange={(e) => setParam('deleted', e.target.checked ? '1' : '')}
            />
            Afficher les organisations supprimées
          </label>
        )}
      </div>

      {panel?.kind === 'create' && (
        <TenantForm
          superuser={superuser}
          onClose={() => setPanel(null)}
          onSaved={(t) => {
            setPanel(null);
            setNotice(`Organisation « ${t.name} » créée.`);
            reload();
          }}
        />
      )}
      {panel?.kind === 'edit' && (
        <TenantForm
          key={panel.tenant.id}
          tenant={panel.tenant}
          superuser={superuser}
          onClose={() => setPanel(null)}
          onSaved={(t) => {
            setPanel(null);
            setNotice(`Organisation « ${t.name} » enregistrée.`);
            reload();
          }}
        />
      )}
      {panel?.kind === 'delete' && (
        <TenantDeleteConfirm
          key={panel.tenant.id}
          tenant={panel.tenant}
          onCancel={() => setPanel(null)}
          onDone={() => {
            setNotice(`Organisation « ${panel.tenant.name} » supprimée (restaurable).`);
            setPanel(null);
            reload();
          }}
        />
      )}
      <ActionMessages notice={notice} error={actionError} />

      {!list && <p role="status">Chargement des organisations…</p>}
      {list && (
        <>
          {list.error && note && (
            <p className="error" role="alert">
              Impossible de charger les organisations : {list.error}
            </p>
          )}
          {note && (
            <p className="notice warn" role="note" data-source={list.source}>
              {note}
            </p>
          )}
          <DataOriginNote origin={list.origin} />
          <p className="muted">
            {rows.length === 1 ? '1 organisation' : `${NUMBER.format(rows.length)} organisations`}
          </p>
          {rows.length === 0 ? (
            <EmptyState>{q ? 'Aucune organisation ne correspond.' : 'Aucune organisation.'}</EmptyState>
          ) : (
            <DataTable
              className={list.source === 'sample' ? 'sample' : undefined}
              caption={list.source === 'sample' && 'Exemple — ces organisations ne sont pas réelles'}
              captionClass=""
              headers={['Nom', 'Domaine', 'Offre', 'Statut', 'Utilisateurs', 'Créée le', 'Actions']}
            >
              {rows.map((t) => (
                <tr key={t.id} data-tenant-id={t.id}>
                  <td>{t.name}</td>
                  <td>{t.domain}</td>
                  <td>{PLAN_LABELS[t.subscription_plan] ?? t.subscription_plan}</td>
                  <td>
                    {t.deleted_at ? (
                      <span className="vm-badge failed">Supprimée</span>
                    ) : (
                      <span className={`vm-badge ${t.status === 'active' ? 'ok' : 'pending'}`}>
                        {TENANT_STATUS_LABELS[t.status] ?? t.status}
                      </span>
                    )}
                  </td>
                  <td>{NUMBER.format(t.user_count)}</td>
                  <td>{formatDate(t.created_at)}</td>
                  <td>
                    {writable && (
                      <div className="vm-actions">
                        {t.deleted_at ? (
                          superuser && (
                            <RowAction
                              action="restore"
                              text="Restaurer"
                              name={t.name}
                              disabled={busy === t.id}
                              onClick={() =>
                                void run(t.id, async () => {
                                  await restoreTenant(t.id);
                                  setNotice(`Organisation « ${t.name} » restaurée.`);
                                  reload();
                                })
                              }
                            />
                          )
                        ) : (
                          <>
                            <RowAction
                              action="edit"
                              text="Modifier"
                              name={t.name}
                              onClick={() => setPanel({ kind: 'edit', tenant: t })}
                            />
                            <Link
                              className="btn secondary small"
                              href={`/admin/users?${new URLSearchParams({ tenant: t.id, name: t.name }).toString()}`}
                              aria-label={`Utilisateurs de ${t.name}`}
                            >
                              Utilisateurs
                            </Link>
                            {superuser && (
                              <RowAction
                                action="delete"
                                text="Supprimer"
                                name={t.name}
                                onClick={() => setPanel({ kind: 'delete', tenant: t })}
                              />
                            )}
                          </>
                        )}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      )}
    </section>
  );
}
