import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { RetryError } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { SeverityDonut } from '../../components/charts/index.tsx';
import { getDashboard } from './projects-api.ts';
import type { ActivityEntry, OverdueItem, Project, ProjectDashboard } from './project-types.ts';
import {
  emptyMatrix,
  formatDateTime,
  formatDay,
  LEVEL_LABELS,
  LEVELS,
  NUMBER,
  WORK_STATUSES,
  WORK_STATUS_LABELS,
} from './project-rules.ts';
import { LevelBadge, RiskMatrix, StatusBadge } from './project-widgets.tsx';
import { useProjectResource, type TabProps } from './project-tab.tsx';

/** The dashboard as the server computes it; missing parts (another backend) read as zero. */
function normalize(d: Partial<ProjectDashboard> | null | undefined, project: Project): ProjectDashboard {
  const counts = d?.counts;
  return {
    project: d?.project ?? project,
    counts: {
      assets: counts?.assets ?? project.assets?.length ?? 0,
      vulnerabilities: counts?.vulnerabilities ?? project.vulnerabilities?.length ?? 0,
      open_vulnerabilities: counts?.open_vulnerabilities ?? 0,
      threats: counts?.threats ?? 0,
      active_threats: counts?.active_threats ?? 0,
      risks: counts?.risks ?? 0,
      tasks: counts?.tasks ?? project.tasks?.length ?? 0,
      corrective_actions: counts?.corrective_actions ?? 0,
      documents: counts?.documents ?? 0,
      team_members: counts?.team_members ?? project.team_members?.length ?? 0,
    },
    vulnerabilities_by_severity: {
      critical: 0,
      high: 0,
      medium: 0,
      low: 0,
      info: 0,
      ...d?.vulnerabilities_by_severity,
    },
    tasks_by_status: { TODO: 0, IN_PROGRESS: 0, BLOCKED: 0, DONE: 0, ...d?.tasks_by_status },
    risks_by_level: { low: 0, medium: 0, high: 0, critical: 0, ...d?.risks_by_level },
    risk_matrix: Array.isArray(d?.risk_matrix) ? d.risk_matrix : emptyMatrix(),
    overdue: { tasks: d?.overdue?.tasks ?? [], corrective_actions: d?.overdue?.corrective_actions ?? [] },
    recent_activity: d?.recent_activity ?? [],
  };
}

/** Tableau de bord: completion, key figures, risk heat map, overdue items and recent activity. */
export function DashboardTab({ project }: TabProps) {
  const dashboard = useProjectResource(() => getDashboard(project.id), [project.id]);

  if (dashboard.loading) return <p role="status">Chargement du tableau de bord…</p>;
  return (
    <div className="pj-dashboard">
      {dashboard.state.status === 'error' ? (
        <RetryError
          className="pj-inline-error"
          message={dashboard.state.message}
          onRetry={() => void dashboard.refresh()}
        />
      ) : (
        <DataOriginNote origin={dashboard.origin} />
      )}
      <DashboardGrid dashboard={normalize(dashboard.data, project)} project={project} />
    </div>
  );
}

function DashboardGrid({ dashboard: d, project }: { dashboard: ProjectDashboard; project: Project }) {
  const c = d.counts;
  const tiles: [string, string, string?][] = [
    ['assets', 'Actifs', undefined],
    ['vulnerabilities', 'Vulnérabilités', `${NUMBER.format(c.open_vulnerabilities)} ouvertes`],
    ['threats', 'Menaces', `${NUMBER.format(c.active_threats)} actives`],
    ['risks', 'Risques', undefined],
    ['tasks', 'Tâches', undefined],
    ['corrective_actions', 'Actions correctives', undefined],
    ['documents', 'Documents', undefined],
    ['team_members', 'Membres', undefined],
  ];
  const completion = d.project.completion_percentage ?? project.completion_percentage ?? 0;
  return (
    <div className="pj-grid">
      <section className="card pj-card" aria-labelledby="pj-completion">
        <h3 id="pj-completion">Avancement</h3>
        <p className="pj-big">{NUMBER.format(completion)} %</p>
        <ProgressBar label="Avancement du projet" value={completion} showValue={false} />
        <p className="muted">
          <StatusBadge status={d.project.status ?? project.status} /> · échéance{' '}
          {formatDay(d.project.deadline ?? project.deadline)}
        </p>
      </section>

      <section className="card pj-card pj-span-2" aria-labelledby="pj-counts">
        <h3 id="pj-counts">Chiffres clés</h3>
        <ul className="pj-tiles">
          {tiles.map(([key, text, sub]) => (
            <li key={key} data-count={key}>
              <strong>{NUMBER.format(c[key as keyof typeof c] ?? 0)}</strong>
              <span>{text}</span>
              {sub && <span className="muted small">{sub}</span>}
            </li>
          ))}
        </ul>
      </section>

      <section className="card pj-card pj-span-rows" aria-labelledby="pj-heat">
        <h3 id="pj-heat">Carte des risques</h3>
        <RiskMatrix matrix={d.risk_matrix} caption="Risques ouverts par niveau résiduel" />
        <ul className="pj-level-counts">
          {LEVELS.map((level) => (
            <li key={level} data-level-count={level}>
              <LevelBadge level={level} /> <strong>{NUMBER.format(d.risks_by_level[level] ?? 0)}</strong>
              <span className="visually-hidden"> risques de niveau {LEVEL_LABELS[level]}</span>
            </li>
          ))}
        </ul>
      </section>

      <section className="card pj-card" aria-labelledby="pj-overdue">
        <h3 id="pj-overdue">En retard</h3>
        <Overdue title="Tâches" items={d.overdue.tasks} />
        <Overdue title="Actions correctives" items={d.overdue.corrective_actions} />
      </section>

      <section className="card pj-card" aria-labelledby="pj-vulns">
        <h3 id="pj-vulns">Vulnérabilités par gravité</h3>
        <SeverityDonut distribution={d.vulnerabilities_by_severity} title="Vulnérabilités du projet par gravité" />
      </section>

      <section className="card pj-card" aria-labelledby="pj-tasks">
        <h3 id="pj-tasks">Tâches par statut</h3>
        <ul className="pj-status-counts">
          {WORK_STATUSES.map((s) => (
            <li key={s}>
              <span>{WORK_STATUS_LABELS[s]}</span> <strong>{NUMBER.format(d.tasks_by_status[s] ?? 0)}</strong>
            </li>
          ))}
        </ul>
      </section>

      <section className="card pj-card pj-span-2" aria-labelledby="pj-activity">
        <h3 id="pj-activity">Activité récente</h3>
        <Activity entries={d.recent_activity} />
      </section>
    </div>
  );
}

function Overdue({ title, items }: { title: string; items: OverdueItem[] }) {
  return (
    <>
      <h4>{title}</h4>
      {items.length === 0 ? (
        <p className="muted">Aucun élément en retard.</p>
      ) : (
        <ul className="pj-overdue">
          {items.map((item) => (
            <li key={item.id}>
              <span className="pj-item-title">{item.title}</span>
              <span className="pj-late">échéance {formatDay(item.due_date)}</span>
              <ProgressBar label={`Progression de ${item.title}`} value={item.progress ?? 0} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function userName(user: ActivityEntry['user']): string {
  if (!user) return 'Système';
  if (typeof user === 'string') return user;
  return user.name || user.username || `Utilisateur ${user.id}`;
}

function Activity({ entries }: { entries: ActivityEntry[] }) {
  if (entries.length === 0) return <p className="muted">Aucune activité récente.</p>;
  return (
    <ol className="pj-activity">
      {entries.map((e) => (
        <li key={e.id}>
          <span className="pj-item-title">{e.summary || `${e.action} ${e.object_type}`}</span>
          <span className="muted small">
            {userName(e.user)} · <time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time>
          </span>
        </li>
      ))}
    </ol>
  );
}
