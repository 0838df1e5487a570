import { DataTable } from '../../components/data-table.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { linkThreat, listProjectThreats, markThreatMitigated, unlinkThreat } from './projects-api.ts';
import type { ProjectThreat } from './project-types.ts';
import { formatDay, label, SEVERITY_LABELS, THREAT_STATUS_LABELS } from './project-rules.ts';
import { LinkById } from './link-by-id.tsx';
import { RemovableRow, TabBody, TabMessages, useTabList, type Removal, type TabProps } from './project-tab.tsx';

const REMOVAL: Removal<ProjectThreat> = {
  question: 'Retirer cette menace du projet ?',
  remove: (t) => unlinkThreat(t.id),
  removed: (t) => `Menace « ${t.title} » retirée du projet.`,
};

/** Menaces: the threats linked to the project; editors mark them mitigated and manage the links. */
/** A threat's « Gravité » and « Statut » cells (« Atténuée » once mitigated), wherever a table lists threats. */
export function ThreatStateCells({ threat }: { threat: Pick<ProjectThreat, 'severity' | 'status' | 'is_mitigated'> }) {
  return (
    <>
      <td>
        <span className={`vm-badge ${threat.severity}`}>{label(SEVERITY_LABELS, threat.severity)}</span>
      </td>
      <td>
        {threat.is_mitigated ? (
          <span className="vm-badge ok">Atténuée</span>
        ) : (
          <span className="vm-badge failed">{label(THREAT_STATUS_LABELS, threat.status)}</span>
        )}
      </td>
    </>
  );
}

export function ThreatsTab(props: TabProps) {
  const { project, canEdit, onChanged } = props;
  const tab = useTabList(props, () => listProjectThreats({ project: project.id }));

  const mitigate = (t: ProjectThreat) =>
    tab.act(
      `mitigate-${t.id}`,
      () => markThreatMitigated(t.id),
      `Menace « ${t.title} » marquée comme atténuée.`,
      (saved) => {
        tab.updateRow(t.id, (x) => ({
          ...x,
          ...(saved ?? {}),
          is_mitigated: true,
          status: saved?.status ?? 'MITIGATED',
        }));
        onChanged();
      },
    );

  return (
    <div className="pj-tab">
      <TabMessages tab={tab} />
      {canEdit && (
        <LinkById
          title="Lier une menace"
          fieldLabel="Identifiant de la menace"
          busy={tab.busy === 'link'}
          onLink={(tid) => tab.act('link', () => linkThreat(project.id, tid), 'Menace liée au projet.', tab.changed)}
        />
      )}
      <TabBody tab={tab} loading="Chargement des menaces…" empty="Aucune menace liée à ce projet.">
        {(page) => (
          <DataTable caption="Menaces du projet" headers={['Menace', 'Gravité', 'Statut', 'Liée le']} actions={canEdit}>
            {page.results.map((t) => (
              <tr key={t.id} data-link-id={t.id}>
                <th scope="row" className="pj-name">
                  {t.title}
                </th>
                <ThreatStateCells threat={t} />
                <td>{formatDay(t.created_at)}</td>
                {canEdit && (
                  <td>
                    <RemovableRow tab={tab} row={t} name={t.title} removal={REMOVAL}>
                      {!t.is_mitigated && (
                        <RowAction
                          action="mitigate"
                          text="Marquer comme atténuée"
                          name={t.title}
                          disabled={tab.busy === `mitigate-${t.id}`}
                          onClick={() => void mitigate(t)}
                        />
                      )}
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
