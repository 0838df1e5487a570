import { useState } from 'react';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import { deleteRisk, listRisks, type Id, type Risk } from './projects-api.ts';
import {
  IMPACT_LABELS,
  label,
  LEVEL_LABELS,
  LEVELS,
  LIKELIHOOD_LABELS,
  matrixOf,
  NUMBER,
  RISK_STATUS_LABELS,
  TREATMENT_LABELS,
} from './project-rules.ts';
import { Empty, LevelBadge, RiskMatrix, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
import { RiskForm } from './risk-form.tsx';
import { useLoad } from './use-load.ts';

/** Risques: the register (ordered by residual score), its heat map, and create / edit / delete for editors. */
export function RisksTab({ project, canEdit, onChanged }: TabProps) {
  const [level, setLevel] = useState('');
  const [treatment, setTreatment] = useState('');
  const [status, setStatus] = useState('');
  const { state, reload } = useLoad(
    () => listRisks({ project: project.id, level, treatment, status }),
    JSON.stringify([project.id, level, treatment, status, currentTenantId() ?? '']),
  );
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [editing, setEditing] = useState<Risk | 'new' | null>(null);
  const [confirming, setConfirming] = useState<Id | null>(null);

  const changed = () => {
    reload();
    onChanged();
  };

  return (
    <div className="pj-tab">
      <div className="vm-head">
        <h3>Registre des risques</h3>
        {canEdit && !editing && (
          <button type="button" className="btn primary" onClick={() => setEditing('new')}>
            Nouveau risque
          </button>
        )}
      </div>
      {canEdit && editing && (
        <RiskForm
          key={editing === 'new' ? 'new' : editing.id}
          projectId={project.id}
          risk={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setNotice(
              saved.queued
                ? saved.message
                : editing === 'new'
                  ? `Risque « ${saved.data.title} » créé.`
                  : `Risque « ${saved.data.title} » enregistré.`,
            );
            setEditing(null);
            changed();
          }}
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les risques">
        <FilterSelect
          label="Niveau"
          value={level}
          allLabel="Tous"
          options={LEVELS.map((l) => [l, LEVEL_LABELS[l]] as const)}
          onChange={setLevel}
        />
        <FilterSelect
          label="Traitement"
          value={treatment}
          allLabel="Tous"
          options={Object.entries(TREATMENT_LABELS)}
          onChange={setTreatment}
        />
        <FilterSelect
          label="Statut"
          value={status}
          allLabel="Tous"
          options={Object.entries(RISK_STATUS_LABELS)}
          onChange={setStatus}
        />
      </div>
      <ActionMessages notice={notice} error={actionError} />
      <TabBody state={state} loading="Chargement des risques…">
        {(result) => (
          <div className="pj-risks">
            <div className="pj-risks-matrix">
              <RiskMatrix matrix={matrixOf(result.data.results)} caption="Risques ouverts par niveau résiduel" />
            </div>
            {result.data.results.length === 0 ? (
              <Empty>
                {level || treatment || status
                  ? 'Aucun risque ne correspond à ces filtres.'
                  : 'Aucun risque enregistré.'}
              </Empty>
            ) : (
              <div className="table-wrap pj-risks-table">
                <table className="table">
                  <caption className="visually-hidden">Registre des risques</caption>
                  <thead>
                    <tr>
                      <th scope="col">Risque</th>
                      <th scope="col">Vraisemblance</th>
                      <th scope="col">Gravité</th>
                      <th scope="col">Niveau initial</th>
                      <th scope="col">Niveau résiduel</th>
                      <th scope="col">Traitement</th>
                      <th scope="col">Statut</th>
                      {canEdit && <th scope="col">Actions</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.results.map((r) => (
                      <tr key={r.id} data-risk-id={r.id}>
                        <th scope="row" className="pj-name">
                          {r.title}
                          {r.scenario && <span className="muted pj-desc">{r.scenario}</span>}
                        </th>
                        <td>
                          {r.likelihood} — {label(LIKELIHOOD_LABELS, String(r.likelihood))}
                        </td>
                        <td>
                          {r.impact} — {label(IMPACT_LABELS, String(r.impact))}
                        </td>
                        <td>
                          <LevelBadge level={r.initial_level} score={r.initial_score} />
                        </td>
                        <td>
                          <LevelBadge level={r.residual_level} score={r.residual_score} />
                        </td>
                        <td>{label(TREATMENT_LABELS, r.treatment)}</td>
                        <td>{label(RISK_STATUS_LABELS, r.status)}</td>
                        {canEdit && (
                          <td>
                            <DeletableRowActions
                              name={r.title}
                              question="Supprimer ce risque et son plan de remédiation ?"
                              confirming={confirming === r.id}
                              busy={busy === `delete-${r.id}`}
                              onAsk={() => setConfirming(r.id)}
                              onConfirm={() =>
                                void act(
                                  `delete-${r.id}`,
                                  () => deleteRisk(r.id),
                                  `Risque « ${r.title} » supprimé.`,
                                  () => {
                                    setConfirming(null);
                                    changed();
                                  },
                                )
                              }
                              onCancel={() => setConfirming(null)}
                            >
                              <RowAction action="edit" text="Modifier" name={r.title} onClick={() => setEditing(r)} />
                            </DeletableRowActions>
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
                {result.data.count > result.data.results.length && (
                  <p className="muted small">
                    {NUMBER.format(result.data.results.length)} risques affichés sur {NUMBER.format(result.data.count)}{' '}
                    (les plus élevés d’abord).
                  </p>
                )}
              </div>
            )}
          </div>
        )}
      </TabBody>
    </div>
  );
}
