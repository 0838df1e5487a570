import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import { linkAsset, listProjectAssets, searchTenantAssets, unlinkAsset, type Id } from './projects-api.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS, label, NUMBER } from './project-rules.ts';
import { Empty, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
import { useLoad } from './use-load.ts';
import { messageOf } from '../../lib/error-message.ts';

/** Actifs: the tenant's assets linked to the project; editors link one from the inventory or remove the link. */
export function AssetsTab({ project, canEdit, onChanged }: TabProps) {
  const { state, reload } = useLoad(
    () => listProjectAssets({ project: project.id }),
    `${project.id}|${currentTenantId() ?? ''}`,
  );
  const { busy, notice, actionError, act } = useProjectActions();
  const [confirming, setConfirming] = useState<Id | null>(null);

  const changed = () => {
    reload();
    onChanged();
  };

  return (
    <div className="pj-tab">
      <ActionMessages notice={notice} error={actionError} />
      {canEdit && (
        <LinkAsset
          busy={busy === 'link'}
          onLink={(assetId, name) =>
            act('link', () => linkAsset(project.id, assetId), `Actif « ${name} » lié au projet.`, changed)
          }
        />
      )}
      <TabBody state={state} loading="Chargement des actifs…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>Aucun actif lié à ce projet.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Actifs du projet</caption>
                <thead>
                  <tr>
                    <th scope="col">Nom</th>
                    <th scope="col">Type</th>
                    <th scope="col">Criticité</th>
                    <th scope="col">Hôte</th>
                    <th scope="col">Adresse IP</th>
                    <th scope="col">Système</th>
                    <th scope="col">Vulnérabilités ouvertes</th>
                    {canEdit && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((a) => (
                    <tr key={a.id} data-link-id={a.id}>
                      <th scope="row">{a.name}</th>
                      <td>{label(ASSET_TYPE_LABELS, a.asset_type)}</td>
                      <td>
                        <span className={`vm-badge ${a.criticality}`}>{label(CRITICALITY_LABELS, a.criticality)}</span>
                      </td>
                      <td>{a.hostname || '—'}</td>
                      <td>{a.ip_address || '—'}</td>
                      <td>{a.operating_system || '—'}</td>
                      <td>
                        {(a.vulnerabilities_count ?? 0) > 0 ? (
                          <Link href={`/vulnerabilities/list?asset=${encodeURIComponent(String(a.asset_id))}`}>
                            {NUMBER.format(a.vulnerabilities_count)}
                          </Link>
                        ) : (
                          <span className="muted">Aucune</span>
                        )}
                      </td>
                      {canEdit && (
                        <td>
                          <DeletableRowActions
                            name={a.name}
                            question="Retirer cet actif du projet (il reste dans l’inventaire) ?"
                            confirming={confirming === a.id}
                            busy={busy === `unlink-${a.id}`}
                            onAsk={() => setConfirming(a.id)}
                            onConfirm={() =>
                              void act(
                                `unlink-${a.id}`,
                                () => unlinkAsset(a.id),
                                `Actif « ${a.name} » retiré du projet.`,
                                () => {
                                  setConfirming(null);
                                  changed();
                                },
                              )
                            }
                            onCancel={() => setConfirming(null)}
                          />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </TabBody>
    </div>
  );
}

/** Search the tenant's inventory, choose an asset, link it. */
function LinkAsset({ busy, onLink }: { busy: boolean; onLink: (assetId: Id, name: string) => Promise<boolean> }) {
  const id = useId();
  const [text, setText] = useState('');
  const [found, setFound] = useState<{ id: Id; name: string }[] | null>(null);
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);

  async function search(e: FormEvent) {
    e.preventDefault();
    setSearching(true);
    setError(null);
    try {
      const list = await searchTenantAssets(text.trim());
      setFound(list);
      setChosen(list[0] ? String(list[0].id) : '');
    } catch (err) {
      setFound([]);
      setError(messageOf(err));
    } finally {
      setSearching(false);
    }
  }

  async function link() {
    const asset = found?.find((a) => String(a.id) === chosen);
    if (!asset) {
      setError('Choisissez un actif.');
      return;
    }
    if (await onLink(asset.id, asset.name)) setFound(null);
  }

  return (
    <section className="card pj-inline-form" aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`}>Lier un actif de l’inventaire</h3>
      <form className="pj-inline-fields" role="search" onSubmit={(e) => void search(e)}>
        <FormField id={`${id}-q`} label="Rechercher (nom, hôte, IP)">
          <input id={`${id}-q`} type="search" value={text} onChange={(e) => setText(e.target.value)} />
        </FormField>
        <button type="submit" className="btn secondary" disabled={searching}>
          {searching ? 'Recherche…' : 'Rechercher'}
        </button>
      </form>
      {found && found.length === 0 && !error && <p className="muted">Aucun actif trouvé.</p>}
      {found && found.length > 0 && (
        <div className="pj-inline-fields">
          <FormField id={`${id}-a`} label="Actif">
            <select id={`${id}-a`} value={chosen} onChange={(e) => setChosen(e.target.value)}>
              {found.map((a) => (
                <option key={a.id} value={String(a.id)}>
                  {a.name}
                </option>
              ))}
            </select>
          </FormField>
          <button type="button" className="btn primary" disabled={busy} onClick={() => void link()}>
            {busy ? 'Liaison…' : 'Lier au projet'}
          </button>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
