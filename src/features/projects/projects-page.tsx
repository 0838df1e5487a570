import { Figure, SampleScope, useIsSample } from '../../components/sample-scope.tsx';
import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { FilterSelect } from '../../components/filter-select.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { currentTenantId } from '../../lib/auth/session.ts';
import { listProjects, PROJECT_PAGE_SIZE, type Project } from './projects-api.ts';
import {
  formatDay,
  isLate,
  NUMBER,
  ORDERINGS,
  ownerName,
  PRIORITIES,
  PRIORITY_LABELS,
  STATUS_FILTERS,
} from './project-rules.ts';
import { ProjectForm } from './project-form.tsx';
import { ListNotes, PriorityBadge, StatusBadge } from './project-widgets.tsx';
import { useLoad } from './use-load.ts';
import './projects.css';

const DEFAULT_ORDERING = '-created_at';
type QueryKey = 'page' | 'status' | 'priority' | 'text' | 'ordering';

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The list's filters live in the URL (?status=&priority=&text=&ordering=&page=), so a view can be shared. */
function useProjectQuery() {
  const [params, setParams] = useSearchParams();
  const query = {
    page: positiveInt(params.get('page'), 1),
    status: params.get('status') ?? '',
    priority: params.get('priority') ?? '',
    text: params.get('text') ?? '',
    ordering: params.get('ordering') ?? DEFAULT_ORDERING,
  };
  const update = (changes: Partial<Record<QueryKey, string | number>>) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        // A new filter starts over at page 1.
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const text = String(value ?? '');
          if (text === '' || (key === 'page' && text === '1') || (key === 'ordering' && text === DEFAULT_ORDERING))
            next.delete(key);
          else next.set(key, text);
        }
        return next;
      },
      { replace: true },
    );
  };
  return [query, update] as const;
}

/** Projects: the list the caller can read, with status / priority / text filters in the URL, and creation. */
export default function ProjectsPage() {
  useSignals();
  const canCreate = useCanWrite();
  const [query, update] = useProjectQuery();
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const { page, status, priority, text, ordering } = query;
  const key = JSON.stringify([page, status, priority, text, ordering, currentTenantId() ?? ''] as const);
  const { state, reload } = useLoad(() => listProjects({ page, status, priority, text, ordering }), key);
  const result = state.status === 'ready' ? state.data : null;
  const pages = result ? Math.max(1, Math.ceil(result.data.count / PROJECT_PAGE_SIZE)) : 1;
  const filtered = !!(status || priority || text);

  return (
    <section className="page page-wide pj-page">
      <div className="vm-head">
        <h1>Projets</h1>
        {canCreate && !creating && (
          <button type="button" className="btn primary" onClick={() => setCreating(true)}>
            Nouveau projet
          </button>
        )}
      </div>

      {canCreate && creating && (
        <ProjectForm
          onClose={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            setNotice(saved.queued ? saved.message : `Projet « ${saved.data.name} » créé.`);
            reload();
          }}
        />
      )}

      <div className="vm-toolbar" role="group" aria-label="Filtrer les projets">
        <FilterSelect
          label="Statut"
          value={status}
          allLabel="Tous"
          options={STATUS_FILTERS}
          onChange={(value) => update({ status: value })}
        />
        <FilterSelect
          label="Priorité"
          value={priority}
          allLabel="Toutes"
          options={PRIORITIES.map((p) => [p, PRIORITY_LABELS[p]] as const)}
          onChange={(value) => update({ priority: value })}
        />
        <FilterSelect
          label="Tri"
          value={ordering}
          options={ORDERINGS}
          onChange={(value) => update({ ordering: value })}
        />
        <SearchForm
          label="Recherche (nom, description)"
          className="pj-search"
          value={text}
          onSearch={(t) => update({ text: t })}
        />
      </div>

      <ActionMessages notice={notice} />
      {state.status === 'loading' && <p role="status">Chargement des projets…</p>}
      {state.status === 'error' && (
        <p className="error" role="alert">
          {state.message}
        </p>
      )}
      {state.status !== 'loading' && (
        <>
          {result && <ListNotes result={result} />}
          <SampleScope origin={result?.origin}>
            <p className="muted">
              <Figure>{NUMBER.format(result?.data.count ?? 0)}</Figure>{' '}
              {(result?.data.count ?? 0) === 1 ? 'projet' : 'projets'}
            </p>
            {!result || result.data.results.length === 0 ? (
              <EmptyState>
                {filtered ? 'Aucun projet ne correspond à ces filtres.' : 'Aucun projet pour le moment.'}
              </EmptyState>
            ) : (
              <ProjectTable projects={result.data.results} />
            )}
          </SampleScope>
          <Pager label="Pages des projets" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}

function ProjectTable({ projects }: { projects: Project[] }) {
  // Sample projects do not exist anywhere: no link leads into one.
  const sample = useIsSample();
  return (
    <div className="table-wrap">
      <table className="table pj-table">
        <thead>
          <tr>
            <th scope="col">Projet</th>
            <th scope="col">Statut</th>
            <th scope="col">Priorité</th>
            <th scope="col">Avancement</th>
            <th scope="col">Début</th>
            <th scope="col">Échéance</th>
            <th scope="col">Propriétaire</th>
            <th scope="col">Équipe</th>
          </tr>
        </thead>
        <tbody>
          {projects.map((p) => (
            <tr key={p.id} data-project-id={p.id}>
              <th scope="row" className="pj-name">
                {sample ? (
                  <span>{p.name}</span>
                ) : (
                  <Link href={`/projects/${encodeURIComponent(String(p.id))}`}>{p.name}</Link>
                )}
                {p.description && <span className="muted pj-desc">{p.description}</span>}
              </th>
              <td>
                <StatusBadge status={p.status} />
              </td>
              <td>
                <PriorityBadge priority={p.priority} />
              </td>
              <td>
                <ProgressBar label={`Avancement de ${p.name}`} value={p.completion_percentage ?? 0} />
              </td>
              <td>{formatDay(p.start_date)}</td>
              <td>
                {formatDay(p.deadline)}
                {isLate(p) && <span className="pj-late"> En retard</span>}
              </td>
              <td>{ownerName(p.owner)}</td>
              <td>{NUMBER.format(p.team_members?.length ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
