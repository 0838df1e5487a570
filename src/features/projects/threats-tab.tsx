import { useState } from 'react';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import {
  linkThreat,
  listProjectThreats,
  markThreatMitigated,
  unlinkThreat,
  type Id,
  type ProjectThreat,
} from './projects-api.ts';
import { formatDay, label, SEVERITY_LABELS, THREAT_STATUS_LABELS } from './project-rules.ts';
import { LinkById } from './link-by-id.tsx';
import { Empty, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
import { useLoad } from './use-load.ts';

/** Menaces: the threats linked to the project; editors mark them mitigated and manage the links. */
export function ThreatsTab({ project, canEdit, onChanged }: TabProps) {
  const { state, reload, update } = useLoad(
    () => listProjectThreats({ project: project.id }),
    `${project.id}|${currentTenantId() ?? ''}`,
  );
  const { busy, notice, actionError, act } = useProjectActions();
  const [confirming, setConfirming] = useState<Id | null>(null);

  const changed = () => {
    reload();
    onChanged();
  };

  const mitigate = (t: ProjectThreat) =>
    act(
      `mitigate-${t.id}`,
      () => markThreatMitigated(t.id),
      `Menace « ${t.title} » marquée comme atténuée.`,
      (saved) => {
        update((r) => ({
          ...r,
          data: {
            ...r.data,
            results: r.data.results.map((x) =>
              x.id === t.id ? { ...x, ...(saved ?? {}), is_mitigated: true, status: saved?.status ?? 'MITIGATED' } : x,
            ),
          },
        }));
        onChanged();
      },
    );

  return (
    <div className="pj-tab">
      <ActionMessages notice={notice} error={actionError} />
      {canEdit && (
        <LinkById
          title="Lier une menace"
          fieldLabel="Identifiant de la menace"
          busy={busy === 'link'}
          onLink={(tid) => act('link', () => linkThreat(project.id, tid), 'Menace liée au projet.', changed)}
        />
      )}
      <TabBody state={state} loading="Chargement des menaces…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>Aucune menace liée à ce projet.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Menaces du projet</caption>
                <thead>
                  <tr>
                    <th scope="col">Menace</th>
                    <th scope="col">Gravité</th>
                    <th scope="col">Statut</th>
                    <th scope="col">Liée le</th>
                    {canEdit && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((t) => (
                    <tr key={t.id} data-link-id={t.id}>
                      <th scope="row" className="pj-name">
                        {t.title}
                      </th>
                      <td>
                        <span className={`vm-badge ${t.severity}`}>{label(SEVERITY_LABELS, t.severity)}</span>
                      </td>
                      <td>
                        {t.is_mitigated ? (
                          <span className="vm-badge ok">Atténuée</span>
                        ) : (
                          <span className="vm-badge failed">{label(THREAT_STATUS_LABELS, t.status)}</span>
                        )}
                      </td>
                      <td>{formatDay(t.created_at)}</td>
                      {canEdit && (
                        <td>
                          <DeletableRowActions
                            name={t.title}
                            question="Retirer cette menace du projet ?"
                            confirming={confirming === t.id}
                            busy={busy === `unlink-${t.id}`}
                            onAsk={() => setConfirming(t.id)}
                            onConfirm={() =>
                              void act(
                                `unlink-${t.id}`,
                                () => unlinkThreat(t.id),
                                `Menace « ${t.title} » retirée du projet.`,
                                () => {
                                  setConfirming(null);
                                  changed();
                                },
                              )
                            }
                            onCancel={() => setConfirming(null)}
                          >
                            {!t.is_mitigated && (
                              <RowAction
                                action="mitigate"
                                text="Marquer comme atténuée"
                                name={t.title}
                                disabled={busy === `mitigate-${t.id}`}
                                onClick={() => void mitigate(t)}
                              />
                            )}
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
