import { useState } from 'react';
import { Link } from 'wouter';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import {
  linkVulnerability,
  listProjectVulnerabilities,
  markVulnerabilityResolved,
  unlinkVulnerability,
  type Id,
  type ProjectVulnerability,
} from './projects-api.ts';
import { formatDay, label, SEVERITY_LABELS, SEVERITY_VALUES } from './project-rules.ts';
import { LinkById } from './link-by-id.tsx';
import { Empty, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
import { useLoad } from './use-load.ts';

const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** Vulnérabilités: the findings linked to the project; editors resolve or reopen them and manage the links. */
export function VulnerabilitiesTab({ project, canEdit, onChanged }: TabProps) {
  const [severity, setSeverity] = useState('');
  const [resolved, setResolved] = useState('');
  const { state, reload, update } = useLoad(
    () => listProjectVulnerabilities({ project: project.id, severity, is_resolved: resolved }),
    JSON.stringify([project.id, severity, resolved, currentTenantId() ?? '']),
  );
  const { busy, notice, actionError, act } = useProjectActions();
  const [confirming, setConfirming] = useState<Id | null>(null);

  const changed = () => {
    reload();
    onChanged();
  };

  const toggle = (v: ProjectVulnerability) => {
    const next = !v.is_resolved;
    return act(
      `resolve-${v.id}`,
      () => markVulnerabilityResolved(v.id, next),
      next ? `« ${v.title} » marquée comme résolue.` : `« ${v.title} » rouverte.`,
      (saved) => {
        update((r) => ({
          ...r,
          data: {
            ...r.data,
            results: r.data.results.map((x) =>
              x.id === v.id ? { ...x, ...(saved ?? {}), is_resolved: saved?.is_resolved ?? next } : x,
            ),
          },
        }));
        onChanged();
      },
    );
  };

  return (
    <div className="pj-tab">
      <ActionMessages notice={notice} error={actionError} />
      {canEdit && (
        <LinkById
          title="Lier une vulnérabilité"
          fieldLabel="Identifiant de la vulnérabilité"
          busy={busy === 'link'}
          onLink={(vid) =>
            act('link', () => linkVulnerability(project.id, vid), 'Vulnérabilité liée au projet.', changed)
          }
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les vulnérabilités">
        <FilterSelect
          label="Gravité"
          value={severity}
          allLabel="Toutes"
          options={SEVERITY_VALUES.map((s) => [s, label(SEVERITY_LABELS, s)] as const)}
          onChange={setSeverity}
        />
        <FilterSelect
          label="État"
          value={resolved}
          allLabel="Tous"
          options={[
            ['false', 'Ouvertes'],
            ['true', 'Résolues'],
          ]}
          onChange={setResolved}
        />
      </div>
      <TabBody state={state} loading="Chargement des vulnérabilités…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>
              {severity || resolved
                ? 'Aucune vulnérabilité ne correspond à ces filtres.'
                : 'Aucune vulnérabilité liée à ce projet.'}
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Vulnérabilités du projet</caption>
                <thead>
                  <tr>
                    <th scope="col">Vulnérabilité</th>
                    <th scope="col">CVE</th>
                    <th scope="col">Gravité</th>
                    <th scope="col">CVSS</th>
                    <th scope="col">Actif</th>
                    <th scope="col">État</th>
                    {canEdit && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((v) => (
                    <tr key={v.id} data-link-id={v.id}>
                      <th scope="row" className="pj-name">
                        <Link href={`/vulnerabilities/${encodeURIComponent(String(v.vulnerability_id))}`}>
                          {v.title}
                        </Link>
                        {v.kev && (
                          <abbr
                            className="pj-kev"
                            title="Vulnérabilité activement exploitée (catalogue KEV de la CISA)"
                          >
                            KEV
                          </abbr>
                        )}
                      </th>
                      <td>{v.cve_id ? <Link href={`/cve/${encodeURIComponent(v.cve_id)}`}>{v.cve_id}</Link> : '—'}</td>
                      <td>
                        <span className={`vm-badge ${v.severity}`}>{label(SEVERITY_LABELS, v.severity)}</span>
                      </td>
                      <td>{typeof v.cvss_score === 'number' ? SCORE.format(v.cvss_score) : '—'}</td>
                      <td>{v.asset?.name ?? '—'}</td>
                      <td>
                        {v.is_resolved ? (
                          <span className="vm-badge ok">
                            Résolue{v.resolved_at ? ` le ${formatDay(v.resolved_at)}` : ''}
                          </span>
                        ) : (
                          <span className="vm-badge failed">Ouverte</span>
                        )}
                      </td>
                      {canEdit && (
                        <td>
                          <DeletableRowActions
                            name={v.title}
                            question="Retirer cette vulnérabilité du projet ?"
                            confirming={confirming === v.id}
                            busy={busy === `unlink-${v.id}`}
                            onAsk={() => setConfirming(v.id)}
                            onConfirm={() =>
                              void act(
                                `unlink-${v.id}`,
                                () => unlinkVulnerability(v.id),
                                `« ${v.title} » retirée du projet.`,
                                () => {
                                  setConfirming(null);
                                  changed();
                                },
                              )
                            }
                            onCancel={() => setConfirming(null)}
                          >
                            <RowAction
                              action={v.is_resolved ? 'reopen' : 'resolve'}
                              text={v.is_resolved ? 'Rouvrir' : 'Marquer comme résolue'}
                              name={v.title}
                              disabled={busy === `resolve-${v.id}`}
                              onClick={() => void toggle(v)}
                            />
                          </DeletableRowActions>
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
