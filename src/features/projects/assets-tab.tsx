import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'wouter';
import { DataTable } from '../../components/data-table.tsx';
import { FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { Select } from '../../components/select.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { RowAction } from '../../components/row-action.tsx';
import { linkAsset, listProjectAssets, searchTenantAssets, unlinkAsset } from './projects-api.ts';
import type { Id, ProjectAsset } from './project-types.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS, label, NUMBER } from './project-rules.ts';
import {
  RemovableRow,
  TabBody,
  TabMessages,
  useTabList,
  type Removal,
  type TabList,
  type TabProps,
} from './project-tab.tsx';
import { AssetDetails, AssetEditForm } from './asset-details.tsx';
import { useRowDetails } from './row-details.tsx';

const HEADERS = ['Nom', 'Type', 'Criticité', 'Hôte', 'Adresse IP', 'Système', 'Vulnérabilités ouvertes', 'Détails'];

const REMOVAL: Removal<ProjectAsset> = {
  question: 'Retirer cet actif du projet (il reste dans l’inventaire) ?',
  remove: (a) => unlinkAsset(a.id),
  removed: (a) => `Actif « ${a.name} » retiré du projet.`,
};

/**
 * Actifs: the tenant's assets linked to the project, each with its findings and threats on demand; editors link one
 * from the inventory, change an asset (PUT) or remove the link.
 */
export function AssetsTab(props: TabProps) {
  const { project, canEdit } = props;
  const tab = useTabList(props, () => listProjectAssets({ project: project.id }));
  const [editing, setEditing] = useState<ProjectAsset | null>(null);
  const details = useRowDetails('Vulnérabilités et menaces de l’actif');

  return (
    <div className="pj-tab">
      <TabMessages tab={tab} />
      {canEdit && editing && (
        <AssetEditForm
          key={editing.id}
          asset={editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            tab.setNotice(saved.queued ? saved.message : `Actif « ${saved.data.name} » enregistré.`);
            setEditing(null);
            tab.changed();
          }}
        />
      )}
      {canEdit && (
        <LinkAsset
          busy={tab.busy === 'link'}
          onLink={(assetId, name) =>
            tab.act('link', () => linkAsset(project.id, assetId), `Actif « ${name} » lié au projet.`, tab.changed)
          }
        />
      )}
      <TabBody tab={tab} loading="Chargement des actifs…" empty="Aucun actif lié à ce projet.">
        {(page) => {
          const opened = page.results.find((a) => String(a.id) === details.open);
          return (
            <>
              <DataTable caption="Actifs du projet" headers={HEADERS} actions={canEdit}>
                {page.results.map((a) => (
                  <AssetRow
                    key={a.id}
                    tab={tab}
                    asset={a}
                    canEdit={canEdit}
                    toggle={details.toggle(a.id, a.name)}
                    onEdit={() => setEditing(a)}
                  />
                ))}
              </DataTable>
              {opened && details.panel(opened.id, opened.name, <AssetDetails asset={opened} />)}
            </>
          );
        }}
      </TabBody>
    </div>
  );
}

/** One linked asset: its facts, the button opening its findings and threats, and the editors' actions. */
function AssetRow({
  tab,
  asset: a,
  canEdit,
  toggle,
  onEdit,
}: {
  tab: TabList<ProjectAsset>;
  asset: ProjectAsset;
  canEdit: boolean;
  /** The button opening the asset's findings and threats under the table. */
  toggle: ReactNode;
  onEdit: () => void;
}) {
  return (
    <tr data-link-id={a.id}>
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
      <td>{toggle}</td>
      {canEdit && (
        <td>
          <RemovableRow tab={tab} row={a} name={a.name} removal={REMOVAL}>
            <RowAction action="edit" text="Modifier" name={a.name} onClick={onEdit} />
          </RemovableRow>
        </td>
      )}
    </tr>
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
            <Select
              id={`${id}-a`}
              value={chosen}
              options={found.map((a) => [String(a.id), a.name] as const)}
              onChange={(e) => setChosen(e.target.value)}
            />
          </FormField>
          <button type="button" className="btn primary" disabled={busy} onClick={() => void link()}>
            {busy ? 'Liaison…' : 'Lier au projet'}
          </button>
        </div>
      )}
      <ActionMessages error={error} />
    </section>
  );
}
