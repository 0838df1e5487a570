import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { messageOf } from '../../lib/error-message.ts';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { deleteAsset, listAssets, type Asset, type Paged } from './assets-api.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS } from './asset-rules.ts';
import { AssetForm } from './asset-form.tsx';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import './assets.css';

export const PAGE_SIZE = 25;
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
  const [page, setPage] = useState(1);
  const [assetType, setAssetType] = useState('');
  const [criticality, setCriticality] = useState('');
  const [text, setText] = useState('');
  const [list, setList] = useState<{ data: Paged<Asset>; origin: DataOrigin } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Asset | 'new' | null>(null);
  const [confirming, setConfirming] = useState<Asset['id'] | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<Asset['id']>();
  const [reloadKey, setReloadKey] = useState(0);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    listAssets({ page, page_size: PAGE_SIZE, asset_type: assetType, criticality, text }).then(
      (answer) => {
        if (mine !== seq.current) return;
        setList(answer);
        setLoadError(null);
      },
      (err: unknown) => mine === seq.current && setLoadError(messageOf(err)),
    );
  }, [page, assetType, criticality, text, reloadKey]);

  const reload = () => setReloadKey((k) => k + 1);
  /** A new filter starts over at page 1. */
  const firstPage = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPage(1);
  };

  async function remove(asset: Asset) {
    await run(asset.id, async () => {
      await deleteAsset(asset.id);
      setConfirming(null);
      setNotice(`Actif « ${asset.name} » supprimé.`);
      reload();
    });
  }

  const data = list?.data;
  const pages = data ? Math.max(1, Math.ceil(data.count / PAGE_SIZE)) : 1;
  const filtered = !!(assetType || criticality || text);

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

      <div className="vm-toolbar" role="group" aria-label="Filtrer les actifs">
        <FilterSelect
          label="Type"
          value={assetType}
          allLabel="Tous"
          options={Object.entries(ASSET_TYPE_LABELS)}
          onChange={firstPage(setAssetType)}
        />
        <FilterSelect
          label="Criticité"
          value={criticality}
          allLabel="Toutes"
          options={Object.entries(CRITICALITY_LABELS)}
          onChange={firstPage(setCriticality)}
        />
        <SearchForm label="Recherche (nom, hôte, IP)" className="asset-search" onSearch={firstPage(setText)} />
      </div>

      <ActionMessages notice={notice} error={actionError} />
      <LoadStatus loaded={!!list} error={loadError} failure="Impossible de charger les actifs" />

      {list && data && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted">{data.count === 1 ? '1 actif' : `${NUMBER.format(data.count)} actifs`}</p>
          {data.results.length === 0 ? (
            <EmptyState>{filtered ? 'Aucun actif ne correspond à ces filtres.' : 'Aucun actif enregistré.'}</EmptyState>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Nom</th>
                    <th scope="col">Type</th>
                    <th scope="col">Criticité</th>
                    <th scope="col">Hôte</th>
                    <th scope="col">Adresse IP</th>
                    <th scope="col">Système</th>
                    <th scope="col">Propriétaire</th>
                    <th scope="col">Étiquettes</th>
                    <th scope="col">Vulnérabilités</th>
                    {canWrite && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {data.results.map((a) => (
                    <tr key={a.id} data-asset-id={a.id}>
                      <th scope="row">{a.name}</th>
                      <td>{ASSET_TYPE_LABELS[a.asset_type] ?? a.asset_type}</td>
                      <td>
                        <span className={`vm-badge ${a.criticality}`}>
                          {CRITICALITY_LABELS[a.criticality] ?? a.criticality}
                        </span>
                      </td>
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
                </tbody>
              </table>
            </div>
          )}
          <Pager label="Pages des actifs" page={page} pages={pages} onPage={setPage} />
        </>
      )}
    </section>
  );
}
