import { useState } from 'react';
import { Link } from 'wouter';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { deleteAsset, listAssets, type Asset } from './assets-api.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS } from './asset-rules.ts';
import { AssetForm } from './asset-form.tsx';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { DEFAULT_PAGE_SIZE } from '../../../contract/paged.ts';
import './assets.css';

export const PAGE_SIZE = DEFAULT_PAGE_SIZE;
const NUMBER = new Intl.NumberFormat('fr-FR');

function VulnerabilityCounts({ asset }: { asset: Asset }) {
  const open = asset.open_vulnerability_count ?? 0;
  const total = asset.vulnerability_count ?? 0;
  if (total === 0) return <span className="muted">Aucune</span>;
  return (
    <Link
      href={`/vulnerabilities/list?asset=${encodeURIComponent(String(asset.id))}`}
      aria-label={`Vulnérabilités de ${asset.name} : ${open} ouvertes sur ${total}`}
    >
      {NUMBER.format(open)} ouverte{open > 1 ? 's' : ''} / {NUMBER.format(total)}
    </Link>
  );
}

/** Assets: paged list with filters, create/edit, delete, vulnerability counts linking to the findings. */
export default function AssetsPage() {
  const canWrite = useCanWrite();
  const { query, update, list, pages } = usePagedList({
    filters: { asset_type: '', criticality: '', text: '' },
    url: false,
    load: (q) => listAssets({ ...q, page_size: PAGE_SIZE }),
    pages: (data) => pageCount(data.count, PAGE_SIZE),
  });
  const { page, asset_type: assetType, criticality } = query;
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [confirming, setConfirming] = useState<Asset['id'] | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<Asset['id']>();
  const reload = () => void list.refresh();

  async function remove(asset: Asset) {
    await run(asset.id, async () => {
      await deleteAsset(asset.id);
      setConfirming(null);
      setNotice(`Actif « ${asset.name} » supprimé.`);
      reload();
    });
  }

  const data = list.data;
  const filtered = !!(assetType || criticality || query.text);

  return (
    <section className="page">
      <div className="vm-head">
        <h1>Actifs</h1>
        {canWrite && (
          <button type="button" className="btn primary" onClick={() => setEditing('new')}>
            Nouvel actif
          </button>
        )}
      </div>

      {canWrite && editing && (
        <AssetForm
          key={editing === 'new' ? 'new' : editing.id}
          asset={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setNotice(editing === 'new' ? `Actif « ${saved.name} » créé.` : `Actif « ${saved.name} » enregistré.`);
            setEditing(null);
            reload();
          }}
        />
      )}

      <FilterBar
        label="Filtrer les actifs"
        filters={[
          { key: 'asset_type', label: 'Type', allLabel: 'Tous', options: Object.entries(ASSET_TYPE_LABELS) },
          { key: 'criticality', label: 'Criticité', allLabel: 'Toutes', options: Object.entries(CRITICALITY_LABELS) },
        ]}
        values={query}
        onChange={(key, value) => update({ [key]: value })}
      >
        <SearchForm label="Recherche (nom, hôte, IP)" className="asset-search" onSearch={(text) => update({ text })} />
      </FilterBar>

      <ActionMessages notice={notice} error={actionError} />
      <LoadStatus loaded={!!data} error={list.error} failure="Impossible de charger les actifs" />

      {data && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted">{data.count === 1 ? '1 actif' : `${NUMBER.format(data.count)} actifs`}</p>
          {data.results.length === 0 ? (
            <EmptyState>{filtered ? 'Aucun actif ne correspond à ces filtres.' : 'Aucun actif enregistré.'}</EmptyState>
          ) : (
            <DataTable
              headers={[
                'Nom',
                'Type',
                'Criticité',
                'Exposé à Internet',
                'Hôte',
                'Adresse IP',
                'Système',
                'Propriétaire',
                'Étiquettes',
                'Vulnérabilités',
              ]}
              actions={canWrite}
            >
              {data.results.map((a) => (
                <tr key={a.id} data-asset-id={a.id}>
                  <th scope="row">
                    <Link href={`/assets/${encodeURIComponent(String(a.id))}`}>{a.name}</Link>
                  </th>
                  <td>{ASSET_TYPE_LABELS[a.asset_type] ?? a.asset_type}</td>
                  <td>
                    <span className={`vm-badge ${a.criticality}`}>
                      {CRITICALITY_LABELS[a.criticality] ?? a.criticality}
                    </span>
                  </td>
                  <td>{a.internet_exposed ? <span className="vm-badge exposed">Exposé</span> : '—'}</td>
                  <td>{a.hostname || '—'}</td>
                  <td>{a.ip_address || '—'}</td>
                  <td>{a.operating_system || '—'}</td>
                  <td>{a.owner || '—'}</td>
                  <td className="vm-wrap">{a.tags?.length ? a.tags.join(', ') : '—'}</td>
                  <td>
                    <VulnerabilityCounts asset={a} />
                  </td>
                  {canWrite && (
                    <td>
                      <DeletableRowActions
                        name={a.name}
                        question="Supprimer cet actif ?"
                        confirming={confirming === a.id}
                        busy={busy === a.id}
                        onAsk={() => setConfirming(a.id)}
                        onConfirm={() => void remove(a)}
                        onCancel={() => setConfirming(null)}
                      >
                        <RowAction action="edit" text="Modifier" name={a.name} onClick={() => setEditing(a)} />
                      </DeletableRowActions>
                    </td>
                  )}
                </tr>
              ))}
            </DataTable>
          )}
          <Pager label="Pages des actifs" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
