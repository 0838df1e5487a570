import { useState } from 'react';
import { Link } from 'wouter';
import { DataTable } from '../../components/data-table.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { optionsOf } from '../../components/select.tsx';
import { RowAction } from '../../components/row-action.tsx';
import {
  linkVulnerability,
  listProjectVulnerabilities,
  markVulnerabilityResolved,
  unlinkVulnerability,
} from './projects-api.ts';
import type { ProjectVulnerability } from './project-types.ts';
import { FINDING_SEVERITY_WORDS, formatDay, label, SEVERITY_LABELS, SEVERITY_VALUES } from './project-rules.ts';
import { LinkById } from './link-by-id.tsx';
import { RemovableRow, TabBody, TabMessages, useTabList, type Removal, type TabProps } from './project-tab.tsx';

const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const REMOVAL: Removal<ProjectVulnerability> = {
  question: 'Retirer cette vulnérabilité du projet ?',
  remove: (v) => unlinkVulnerability(v.id),
  removed: (v) => `« ${v.title} » retirée du projet.`,
};

/** Vulnérabilités: the findings linked to the project; editors resolve or reopen them and manage the links. */
export function VulnerabilitiesTab(props: TabProps) {
  const { project, canEdit, onChanged } = props;
  const [filters, setFilters] = useState({ severity: '', is_resolved: '' });
  const { severity, is_resolved: resolved } = filters;
  const tab = useTabList(props, () => listProjectVulnerabilities({ project: project.id, ...filters }), [
    severity,
    resolved,
  ]);

  const toggle = (v: ProjectVulnerability) => {
    const next = !v.is_resolved;
    return tab.act(
      `resolve-${v.id}`,
      () => markVulnerabilityResolved(v.id, next),
      next ? `« ${v.title} » marquée comme résolue.` : `« ${v.title} » rouverte.`,
      (saved) => {
        tab.updateRow(v.id, (x) => ({ ...x, ...(saved ?? {}), is_resolved: saved?.is_resolved ?? next }));
        onChanged();
      },
    );
  };

  return (
    <div className="pj-tab">
      <TabMessages tab={tab} />
      {canEdit && (
        <LinkById
          title="Lier une vulnérabilité"
          fieldLabel="Identifiant de la vulnérabilité"
          busy={tab.busy === 'link'}
          onLink={(vid) =>
            tab.act('link', () => linkVulnerability(project.id, vid), 'Vulnérabilité liée au projet.', tab.changed)
          }
        />
      )}
      <FilterBar
        label="Filtrer les vulnérabilités"
        filters={[
          {
            key: 'severity',
            label: 'Gravité',
            allLabel: 'Toutes',
            options: optionsOf(SEVERITY_LABELS, SEVERITY_VALUES),
          },
          {
            key: 'is_resolved',
            label: 'État',
            allLabel: 'Tous',
            options: [
              ['false', 'Ouvertes'],
              ['true', 'Résolues'],
            ],
          },
        ]}
        values={filters}
        onChange={(key, value) => setFilters((f) => ({ ...f, [key]: value }))}
      />
      <TabBody
        tab={tab}
        loading="Chargement des vulnérabilités…"
        empty={
          severity || resolved
            ? 'Aucune vulnérabilité ne correspond à ces filtres.'
            : 'Aucune vulnérabilité liée à ce projet.'
        }
      >
        {(page) => (
          <DataTable
            caption="Vulnérabilités du projet"
            headers={['Vulnérabilité', 'CVE', 'Gravité', 'CVSS', 'Actif', 'État']}
            actions={canEdit}
          >
            {page.results.map((v) => (
              <tr key={v.id} data-link-id={v.id}>
                <th scope="row" className="pj-name">
                  <Link href={`/vulnerabilities/${encodeURIComponent(String(v.vulnerability_id))}`} data-content="">
                    {v.title}
                  </Link>
                  {v.kev && (
                    <abbr className="pj-kev" title="Vulnérabilité activement exploitée (catalogue KEV de la CISA)">
                      KEV
                    </abbr>
                  )}
                </th>
                <td>{v.cve_id ? <Link href={`/cve/${encodeURIComponent(v.cve_id)}`}>{v.cve_id}</Link> : '—'}</td>
                <td>
                  <span className={`vm-badge ${v.severity}`}>{label(FINDING_SEVERITY_WORDS, v.severity)}</span>
                </td>
                <td>{typeof v.cvss_score === 'number' ? SCORE.format(v.cvss_score) : '—'}</td>
                <td>{v.asset?.name ?? '—'}</td>
                <td>
                  {v.is_resolved ? (
                    <span className="vm-badge ok">Résolue{v.resolved_at ? ` le ${formatDay(v.resolved_at)}` : ''}</span>
                  ) : (
                    <span className="vm-badge failed">Ouverte</span>
                  )}
                </td>
                {canEdit && (
                  <td>
                    <RemovableRow tab={tab} row={v} name={v.title} removal={REMOVAL}>
                      <RowAction
                        action={v.is_resolved ? 'reopen' : 'resolve'}
                        text={v.is_resolved ? 'Rouvrir' : 'Marquer comme résolue'}
                        name={v.title}
                        disabled={tab.busy === `resolve-${v.id}`}
                        onClick={() => void toggle(v)}
                      />
                    </RemovableRow>
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </TabBody>
    </div>
  );
}
