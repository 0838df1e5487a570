import { Figure, SampleScope, useIsSample } from '../../components/sample-scope.tsx';
import { useState } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataTable } from '../../components/data-table.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { optionsOf } from '../../components/select.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { currentTenantId } from '../../lib/auth/session.ts';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { listProjects, PROJECT_PAGE_SIZE } from './projects-api.ts';
import type { Project } from './project-types.ts';
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
import { PriorityBadge, StatusBadge } from './project-widgets.tsx';
import { ListNotes } from './project-tab.tsx';
import './projects.css';

/** Projects: the list the caller can read, with status / priority / text filters in the URL, and creation. */
export default function ProjectsPage() {
  useSignals();
  const canCreate = useCanWrite();
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // The filters live in the URL (?status=&priority=&text=&ordering=&page=), so a view can be shared.
  const { query, update, list, pages } = usePagedList({
    filters: { status: '', priority: '', text: '', ordering: '-created_at' },
    load: (q) => listProjects(q),
    pages: (data) => pageCount(data.count, PROJECT_PAGE_SIZE),
    deps: [currentTenantId() ?? ''],
  });
  const { page, status, priority, text } = query;
  // A new filter shows « Chargement… » until its answer; a reload keeps the list on screen.
  const ready = list.state.status === 'ready' ? list.state : null;
  const count = ready?.data.count ?? 0;
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
            void list.refresh();
          }}
        />
      )}

      <FilterBar
        label="Filtrer les projets"
        filters={[
          { key: 'status', label: 'Statut', allLabel: 'Tous', options: STATUS_FILTERS },
          { key: 'priority', label: 'Priorité', allLabel: 'Toutes', options: optionsOf(PRIORITY_LABELS, PRIORITIES) },
          { key: 'ordering', label: 'Tri', options: ORDERINGS },
        ]}
        values={query}
        onChange={(key, value) => update({ [key]: value })}
      >
        <SearchForm
          label="Recherche (nom, description)"
          className="pj-search"
          value={text}
          onSearch={(t) => update({ text: t })}
        />
      </FilterBar>

      <ActionMessages notice={notice} />
      {list.loading && <p role="status">Chargement des projets…</p>}
      {!list.loading && (
        <>
          <ListNotes resource={{ origin: ready?.origin, error: list.error }} />
          <SampleScope origin={ready?.origin}>
            <p className="muted">
              <Figure>{NUMBER.format(count)}</Figure> {count === 1 ? 'projet' : 'projets'}
            </p>
            {!ready || ready.data.results.length === 0 ? (
              <EmptyState>
                {filtered ? 'Aucun projet ne correspond à ces filtres.' : 'Aucun projet pour le moment.'}
              </EmptyState>
            ) : (
              <ProjectTable projects={ready.data.results} />
            )}
          </SampleScope>
          <Pager label="Pages des projets" page={page} pages={ready ? pages : 1} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}

function ProjectTable({ projects }: { projects: Project[] }) {
  // Sample projects do not exist anywhere: no link leads into one.
  const sample = useIsSample();
  return (
    <DataTable
      className="pj-table"
      headers={['Projet', 'Statut', 'Priorité', 'Avancement', 'Début', 'Échéance', 'Propriétaire', 'Équipe']}
    >
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
    </DataTable>
  );
}
