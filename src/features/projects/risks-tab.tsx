import { useState, type ReactNode } from 'react';
import { DataTable } from '../../components/data-table.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { EmptyState } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { optionsOf } from '../../components/select.tsx';
import { deleteRisk, listRisks } from './projects-api.ts';
import type { Risk } from './project-types.ts';
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
import { LevelBadge, RiskMatrix } from './project-widgets.tsx';
import { RemovableRow, TabBody, TabHead, TabMessages, useTabList } from './project-tab.tsx';
import type { Removal, TabList, TabProps } from './project-tab.tsx';
import { RiskForm } from './risk-form.tsx';
import { RiskPlan } from './risk-plan.tsx';
import { useRowDetails } from './row-details.tsx';

const HEADERS = [
  'Risque',
  'Vraisemblance',
  'Gravité',
  'Niveau initial',
  'Niveau résiduel',
  'Traitement',
  'Statut',
  'Plan de remédiation',
];

const REMOVAL: Removal<Risk> = {
  question: 'Supprimer ce risque et son plan de remédiation ?',
  remove: (r) => deleteRisk(r.id),
  removed: (r) => `Risque « ${r.title} » supprimé.`,
};

/** Risques: the register (ordered by residual score), its heat map, and create / edit / delete for editors. */
export function RisksTab(props: TabProps) {
  const { project, canEdit } = props;
  const [filters, setFilters] = useState({ level: '', treatment: '', status: '' });
  const { level, treatment, status } = filters;
  const tab = useTabList(props, () => listRisks({ project: project.id, ...filters }), [level, treatment, status]);
  const [editing, setEditing] = useState<Risk | 'new' | null>(null);
  const details = useRowDetails('Plan de remédiation du risque');

  return (
    <div className="pj-tab">
      <TabHead
        title="Registre des risques"
        action={canEdit && !editing && 'Nouveau risque'}
        onAction={() => setEditing('new')}
      />
      {canEdit && editing && (
        <RiskForm
          key={editing === 'new' ? 'new' : editing.id}
          projectId={project.id}
          risk={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            tab.setNotice(
              saved.queued
                ? saved.message
                : editing === 'new'
                  ? `Risque « ${saved.data.title} » créé.`
                  : `Risque « ${saved.data.title} » enregistré.`,
            );
            setEditing(null);
            tab.changed();
          }}
        />
      )}
      <FilterBar
        label="Filtrer les risques"
        filters={[
          { key: 'level', label: 'Niveau', allLabel: 'Tous', options: optionsOf(LEVEL_LABELS, LEVELS) },
          { key: 'treatment', label: 'Traitement', allLabel: 'Tous', options: optionsOf(TREATMENT_LABELS) },
          { key: 'status', label: 'Statut', allLabel: 'Tous', options: optionsOf(RISK_STATUS_LABELS) },
        ]}
        values={filters}
        onChange={(key, value) => setFilters((f) => ({ ...f, [key]: value }))}
      />
      <TabMessages tab={tab} />
      <TabBody tab={tab} loading="Chargement des risques…">
        {(page) => {
          const opened = page.results.find((r) => String(r.id) === details.open);
          return (
            <>
              <div className="pj-risks">
                <div className="pj-risks-matrix">
                  <RiskMatrix matrix={matrixOf(page.results)} caption="Risques ouverts par niveau résiduel" />
                </div>
                {page.results.length === 0 ? (
                  <EmptyState>
                    {level || treatment || status
                      ? 'Aucun risque ne correspond à ces filtres.'
                      : 'Aucun risque enregistré.'}
                  </EmptyState>
                ) : (
                  <DataTable
                    wrapClassName="pj-risks-table"
                    after={
                      page.count > page.results.length && (
                        <p className="muted small">
                          {NUMBER.format(page.results.length)} risques affichés sur {NUMBER.format(page.count)} (les
                          plus élevés d’abord).
                        </p>
                      )
                    }
                    caption="Registre des risques"
                    headers={HEADERS}
                    actions={canEdit}
                  >
                    {page.results.map((r) => (
                      <RiskRow
                        key={r.id}
                        tab={tab}
                        risk={r}
                        canEdit={canEdit}
                        toggle={details.toggle(r.id, r.title)}
                        onEdit={() => setEditing(r)}
                      />
                    ))}
                  </DataTable>
                )}
              </div>
              {opened && details.panel(opened.id, opened.title, <RiskPlan risk={opened} />)}
            </>
          );
        }}
      </TabBody>
    </div>
  );
}

/** One risk of the register, with the button opening its remediation plan when it has one. */
function RiskRow({
  tab,
  risk: r,
  canEdit,
  toggle,
  onEdit,
}: {
  tab: TabList<Risk>;
  risk: Risk;
  canEdit: boolean;
  /** The button opening the risk's plan under the table (shown when the risk has a plan). */
  toggle: ReactNode;
  onEdit: () => void;
}) {
  return (
    <tr data-risk-id={r.id}>
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
      <td>{(r.remediation_plan ?? null) !== null ? toggle : <span className="muted">Aucun</span>}</td>
      {canEdit && (
        <td>
          <RemovableRow tab={tab} row={r} name={r.title} removal={REMOVAL}>
            <RowAction action="edit" text="Modifier" name={r.title} onClick={onEdit} />
          </RemovableRow>
        </td>
      )}
    </tr>
  );
}
