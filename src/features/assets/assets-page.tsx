import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { deleteAsset, listAssets, type Asset, type Paged } from './assets-api.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS } from './asset-rules.ts';
import { AssetForm } from './asset-form.tsx';
import { useCanWrite } from './can-write.ts';
import './assets.css';

export const PAGE_SIZE = 25;
const NUMBER = new Intl.NumberFormat('fr-FR');

function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Erreur inattendue.';
}

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

function SearchForm({ onSearch }: { onSearch: (text: string) => void }) {
  const id = useId();
  const [text, setText] = useState('');
  return (
    <form
      role="search"
      className="asset-search"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSearch(text.trim());
      }}
    >
      <label htmlFor={`${id}-q`}>
        Recherche (nom, hôte, IP)
        <input id={`${id}-q`} type="search" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit" className="btn secondary">
        Rechercher
      </button>
    </form>
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
  const [busy, setBusy] = useState<Asset['id'] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
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

  async function remove(asset: Asset) {
    setBusy(asset.id);
    setActionError(null);
    setNotice(null);
    try {
      await deleteAsset(asset.id);
      setConfirming(null);
      setNotice(`Actif « ${asset.name} » supprimé.`);
      reload();
    } catch (err) {
      setActionError(messageOf(err));
    } finally {
      setBusy(null);
    }
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
        <label>
          Type
          <select
            value={assetType}
            onChange={(e) => {
              setAssetType(e.target.value);
              setPage(1);
            }}
          >
            <option value="">Tous</option>
            {Object.entries(ASSET_TYPE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Criticité
          <select
            value={criticality}
            onChange={(e) => {
              setCriticality(e.target.value);
              setPage(1);
            }}
          >
            <option value="">Toutes</option>
            {Object.entries(CRITICALITY_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <SearchForm
          onSearch={(t) => {
            setText(t);
            setPage(1);
          }}
        />
      </div>

      {notice && (
        <p className="vm-success" role="status">
          {notice}
        </p>
      )}
      {actionError && (
        <p className="error" role="alert">
          {actionError}
        </p>
      )}
      {loadError && (
        <p className="error" role="alert">
          Impossible de charger les actifs : {loadError}
        </p>
      )}
      {!list && !loadError && <p role="status">Chargement…</p>}

      {list && data && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted">{data.count === 1 ? '1 actif' : `${NUMBER.format(data.count)} actifs`}</p>
          {data.results.length === 0 ? (
            <p className="vm-empty card">
              {filtered ? 'Aucun actif ne correspond à ces filtres.' : 'Aucun actif enregistré.'}
            </p>
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
                          {confirming === a.id ? (
                            <div className="vm-actions" role="group" aria-label={`Supprimer ${a.name}`}>
                              <span>Supprimer cet actif ?</span>
                              <button
                                type="button"
                                className="btn danger small"
                                disabled={busy === a.id}
                                onClick={() => void remove(a)}
                              >
                                Oui, supprimer
                              </button>
                              <button type="button" className="btn secondary small" onClick={() => setConfirming(null)}>
                                Non
                              </button>
                            </div>
                          ) : (
                            <div className="vm-actions">
                              <button
                                type="button"
                                className="btn secondary small"
                                data-action="edit"
                                aria-label={`Modifier : ${a.name}`}
                                onClick={() => setEditing(a)}
                              >
                                Modifier
                              </button>
                              <button
                                type="button"
                                className="btn secondary small"
                                data-action="delete"
                                aria-label={`Supprimer : ${a.name}`}
                                onClick={() => setConfirming(a.id)}
                              >
                                Supprimer
                              </button>
                            </div>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {pages > 1 && (
            <nav className="vm-pager" aria-label="Pages des actifs">
              <button
                type="button"
                className="btn secondary small"
                disabled={page <= 1}
                onClick={() => setPage(page - 1)}
              >
                Précédente
              </button>
              <span>
                Page {NUMBER.format(page)} sur {NUMBER.format(pages)}
              </span>
              <button
                type="button"
                className="btn secondary small"
                disabled={page >= pages}
                onClick={() => setPage(page + 1)}
              >
                Suivante
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
