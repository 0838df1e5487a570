import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Link, useLocation, useParams, useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import type { DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { deleteProject, getProject } from './projects-api.ts';
import { PROJECT_MESSAGES } from './project-http.ts';
import type { Project } from './project-types.ts';
import { ACCESS_LABELS, accessOf, formatDay, formatDateTime, isLate, ownerName } from './project-rules.ts';
import { ProjectForm } from './project-form.tsx';
import { PriorityBadge, StatusBadge } from './project-widgets.tsx';
import { useProjectActions, useProjectResource, type TabProps } from './project-tab.tsx';
import { DashboardTab } from './dashboard-tab.tsx';
import { TeamTab } from './team-tab.tsx';
import { AssetsTab } from './assets-tab.tsx';
import { RisksTab } from './risks-tab.tsx';
import { RemediationTab } from './remediation-tab.tsx';
import { VulnerabilitiesTab } from './vulnerabilities-tab.tsx';
import { ThreatsTab } from './threats-tab.tsx';
import { TasksTab } from './tasks-tab.tsx';
import { DocumentsTab } from './documents-tab.tsx';
import './projects.css';

export const TABS = [
  ['dashboard', 'Tableau de bord', DashboardTab],
  ['team', 'Équipe', TeamTab],
  ['assets', 'Actifs', AssetsTab],
  ['risks', 'Risques', RisksTab],
  ['remediation', 'Remédiation', RemediationTab],
  ['vulnerabilities', 'Vulnérabilités', VulnerabilitiesTab],
  ['threats', 'Menaces', ThreatsTab],
  ['tasks', 'Tâches', TasksTab],
  ['documents', 'Documents', DocumentsTab],
] as const satisfies readonly (readonly [string, string, (props: TabProps) => ReactNode])[];

export type TabId = (typeof TABS)[number][0];

/** /projects/:id */
export default function ProjectPage() {
  const { id = '' } = useParams<{ id: string }>();
  return <ProjectView id={id} />;
}

/** One project: its header (status, priority, completion, dates, owner) and its tabs, chosen in the URL (?tab=). */
export function ProjectView({ id }: { id: string }) {
  useSignals();
  const resource = useProjectResource(() => getProject(id), [id]);
  const { state } = resource;
  const reload = () => void resource.refresh();

  return (
    <section className="page page-wide pj-page" aria-busy={state.status === 'loading'}>
      <p className="pj-back">
        <Link href="/projects">← Projets</Link>
      </p>
      {state.status === 'loading' && <p role="status">Chargement du projet…</p>}
      {state.status === 'error' && (
        <>
          <h1>
            {state.httpStatus === 404 ? 'Projet introuvable' : state.httpStatus === 403 ? 'Accès refusé' : 'Projet'}
          </h1>
          <p className="error" role="alert">
            {state.httpStatus === 404
              ? PROJECT_MESSAGES.notFound
              : state.httpStatus === 403
                ? PROJECT_MESSAGES.forbidden
                : state.message}
          </p>
          {state.httpStatus !== 404 && state.httpStatus !== 403 && (
            <button type="button" className="btn secondary" onClick={reload}>
              Réessayer
            </button>
          )}
        </>
      )}
      {state.status === 'ready' && (
        <ProjectScreen
          project={state.data}
          origin={state.origin}
          onChanged={reload}
          onSaved={(project) => resource.update((d) => ({ ...d, ...project }))}
        />
      )}
    </section>
  );
}

function ProjectScreen({
  project,
  origin,
  onChanged,
  onSaved,
}: {
  project: Project;
  origin: DataOrigin | undefined;
  onChanged: () => void;
  onSaved: (project: Project) => void;
}) {
  const { access, canEdit, canManage } = accessOf(project);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [, navigate] = useLocation();

  async function remove() {
    const ok = await act('project', () => deleteProject(project.id), `Projet « ${project.name} » supprimé.`);
    if (ok) navigate('/projects');
  }

  return (
    <>
      <DataOriginNote origin={origin} />
      <header className="pj-header">
        <div className="vm-head">
          <h1>{project.name}</h1>
          <div className="vm-actions">
            {canEdit && !editing && (
              <button type="button" className="btn secondary" onClick={() => setEditing(true)}>
                Modifier le projet
              </button>
            )}
            {canManage && !confirming && (
              <button type="button" className="btn danger" onClick={() => setConfirming(true)}>
                Supprimer le projet
              </button>
            )}
          </div>
        </div>
        {confirming && (
          <ConfirmDelete
            name={project.name}
            question="Supprimer ce projet, ses risques, plans, tâches et documents ?"
            busy={busy === 'project'}
            onConfirm={() => void remove()}
            onCancel={() => setConfirming(false)}
          />
        )}
        <ActionMessages notice={notice} error={actionError} />
        {project.description && <p className="pj-description">{project.description}</p>}
        <dl className="pj-facts">
          <div>
            <dt>Statut</dt>
            <dd>
              <StatusBadge status={project.status} />
            </dd>
          </div>
          <div>
            <dt>Priorité</dt>
            <dd>
              <PriorityBadge priority={project.priority} />
            </dd>
          </div>
          <div className="pj-fact-wide">
            <dt>Avancement</dt>
            <dd>
              <ProgressBar label="Avancement du projet" value={project.completion_percentage ?? 0} />
            </dd>
          </div>
          <div>
            <dt>Début</dt>
            <dd>{formatDay(project.start_date)}</dd>
          </div>
          <div>
            <dt>Échéance</dt>
            <dd>
              {formatDay(project.deadline)}
              {isLate(project) && <span className="pj-late"> En retard</span>}
            </dd>
          </div>
          <div>
            <dt>Propriétaire</dt>
            <dd>{ownerName(project.owner)}</dd>
          </div>
          <div>
            <dt>Votre accès</dt>
            <dd data-access={access}>{ACCESS_LABELS[access]}</dd>
          </div>
          <div>
            <dt>Mis à jour</dt>
            <dd>{formatDateTime(project.updated_at)}</dd>
          </div>
        </dl>
      </header>

      {canEdit && editing && (
        <ProjectForm
          project={project}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            if (saved.queued) setNotice(saved.message);
            else {
              onSaved(saved.data);
              setNotice(`Projet « ${saved.data.name} » enregistré.`);
            }
          }}
        />
      )}

      <ProjectTabs project={project} canEdit={canEdit} canManage={canManage} onChanged={onChanged} />
    </>
  );
}

function isTab(value: string | null): value is TabId {
  return TABS.some(([id]) => id === value);
}

/** WAI-ARIA tabs: arrows, Home and End move between tabs; only the chosen panel is rendered. */
function ProjectTabs(props: TabProps) {
  const base = useId();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const current: TabId = isTab(requested) ? requested : 'dashboard';
  const refs = useRef<(HTMLButtonElement | null)[]>([]);

  const choose = (tab: TabId, focus = false) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (tab === 'dashboard') next.delete('tab');
        else next.set('tab', tab);
        return next;
      },
      { replace: true },
    );
    if (focus) refs.current[TABS.findIndex(([id]) => id === tab)]?.focus();
  };

  const onKey = (e: KeyboardEvent, index: number) => {
    const last = TABS.length - 1;
    const target =
      e.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : e.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? last
              : null;
    if (target === null) return;
    e.preventDefault();
    const tab = TABS[target];
    if (tab) choose(tab[0], true);
  };

  const active = TABS.find(([id]) => id === current) ?? TABS[0];
  const Panel = active[2];
  return (
    <div className="pj-tabs">
      <div role="tablist" aria-label="Sections du projet" className="pj-tablist">
        {TABS.map(([id, text], i) => (
          <button
            key={id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${id}`}
            data-tab={id}
            aria-selected={id === current}
            aria-controls={`${base}-panel`}
            tabIndex={id === current ? 0 : -1}
            onClick={() => choose(id)}
            onKeyDown={(e) => onKey(e, i)}
          >
            {text}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${base}-panel`}
        aria-labelledby={`${base}-tab-${current}`}
        className="pj-panel"
        data-panel={current}
        tabIndex={0}
      >
        <h2 className="visually-hidden">{active[1]}</h2>
        <Panel key={`${current}|${props.project.id}`} {...props} />
      </div>
    </div>
  );
}
