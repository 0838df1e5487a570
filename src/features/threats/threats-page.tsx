import { useState } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { usePagedList } from '../../lib/use-paged-list.ts';
import { useResource } from '../../lib/use-resource.ts';
import { SeverityDonut } from '../../components/charts/index.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { SearchForm } from '../../components/search-form.tsx';
import {
  deleteThreat,
  fetchThreat,
  fetchThreats,
  markMitigated,
  readThreatSummary,
  type Threat,
  type ThreatOutcome,
  type ThreatSummary,
} from './threats-api.ts';
import {
  failureReason,
  label,
  SEVERITIES,
  SEVERITY_LABELS,
  THREAT_STATUS_LABELS,
  THREAT_STATUS_TONE,
  THREAT_TYPES,
} from './threat-rules.ts';
import { ThreatForm } from './threat-form.tsx';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import './threats.css';
import { dateFormat } from '../../lib/format.ts';

export const PAGE_SIZES = [10, 25, 50, 100] as const;
const DEFAULT_SIZE = 10;

/** The page size asked in the URL, when it is one of PAGE_SIZES. */
function sizeOf(value: string): number {
  const n = Number(value);
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : DEFAULT_SIZE;
}

const DATE = dateFormat({ dateStyle: 'short', timeStyle: 'short' });
const NUMBER = new Intl.NumberFormat('fr-FR');

function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE.format(d);
}

/**
 * Shown in place of an error panel when a read failed and its spec §7 fallback is displayed: says what is missing, why,
 * and that what is shown is a default, with a retry.
 */
function FallbackNote({
  subject,
  fallback,
  outcome,
  retryLabel,
  onRetry,
}: {
  subject: string;
  fallback: string;
  outcome: { status: number; message: string };
  retryLabel: string;
  onRetry: () => void;
}) {
  return (
    <div className="notice warn threat-fallback" role="status">
      <p>
        {subject} : {failureReason(outcome.status, outcome.message)}. {fallback}
      </p>
      <button type="button" className="btn secondary small" aria-label={retryLabel} onClick={onRetry}>
        Réessayer
      </button>
    </div>
  );
}

function SummaryPanel({ outcome }: { outcome: ThreatOutcome<ThreatSummary> }) {
  const summary = outcome.data;
  // A fallback summary is all zeros: its lists say "unavailable", not "none".
  const none = outcome.failed ? 'Indisponible.' : null;
  const distribution = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const s of summary.by_severity) {
    if (s.severity in distribution) distribution[s.severity as keyof typeof distribution] = s.count;
  }
  return (
    <section className="threat-summary" aria-labelledby="threat-summary-title">
      <h2 id="threat-summary-title" className="visually-hidden">
        Synthèse des menaces
      </h2>
      {!outcome.failed && <DataOriginNote origin={outcome.origin} />}
      <SampleScope origin={outcome.failed ? undefined : outcome.origin} className="threat-cards">
        <div className="card threat-total">
          <span className="muted">Menaces</span>
          <Figure>{NUMBER.format(summary.threats_count)}</Figure>
        </div>
        <div className="card">
          <SeverityDonut distribution={distribution} title="Menaces par gravité" />
        </div>
        <div className="card">
          <h3>Par statut</h3>
          {summary.by_status.length === 0 ? (
            <p className="muted">{none ?? 'Aucune menace.'}</p>
          ) : (
            <ul className="threat-status-list">
              {summary.by_status.map((s) => (
                <li key={s.status}>
                  <span className={`vm-badge ${label(THREAT_STATUS_TONE, s.status)}`}>
                    {label(THREAT_STATUS_LABELS, s.status)}
                  </span>
                  <strong>{NUMBER.format(s.count)}</strong>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="card">
          <h3>Menaces récentes</h3>
          {summary.recent_threats.length === 0 ? (
            <p className="muted">{none ?? 'Aucune menace récente.'}</p>
          ) : (
            <ul className="threat-recent">
              {summary.recent_threats.map((t) => (
                <li key={t.id}>
                  <span className={`vm-badge ${t.severity}`}>{label(SEVERITY_LABELS, t.severity)}</span>{' '}
                  <span>{t.title}</span> <time dateTime={t.created_at}>{formatDate(t.created_at)}</time>
                </li>
              ))}
            </ul>
          )}
        </div>
      </SampleScope>
    </section>
  );
}

/** Threats: spec §3 summary, list with URL filters, create/edit, mark as mitigated, delete. */
export default function ThreatsPage() {
  const canWrite = useCanWrite();
  // The list's filters live in the URL (?page=&size=&severity=&status=&text=), so a filtered view can be shared.
  const { query, update, list } = usePagedList({
    filters: { size: String(DEFAULT_SIZE), severity: '', status: '', text: '' },
    load: async ({ page, size, severity, status, text }) => ({
      data: await fetchThreats({ page, size: sizeOf(size), severity, status, text }),
    }),
    pages: (outcome) => outcome.data.pages,
  });
  const { page, severity, status, text } = query;
  const size = sizeOf(query.size);
  const summaryRead = useResource(async () => ({ data: await readThreatSummary() }), []);
  const summary = summaryRead.data ?? null;
  const [editing, setEditing] = useState<Threat | 'new' | null>(null);
  /** Said in the edit form when the current version could not be read and the row's copy is edited. */
  const [editNote, setEditNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Threat['id'] | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<Threat['id']>();
  /** A write the API answered with its spec §7 fallback (false): said here, the row and the form stay as they were. */
  const [writeError, setWriteError] = useState<string | null>(null);

  const reload = () => {
    void summaryRead.refresh();
    void list.refresh();
  };

  /** Puts the server's current version of one threat in its row. */
  const replaceRow = (fresh: Threat) =>
    list.update((prev) => ({
      ...prev,
      data: { ...prev.data, results: prev.data.results.map((t) => (t.id === fresh.id ? fresh : t)) },
    }));

  /** Runs a row action; its outcome's failure is said in French (thrown 401/403 go through `run` as before). */
  const act = (id: Threat['id'], action: () => Promise<void>) => {
    setWriteError(null);
    return run(id, action);
  };

  async function mitigate(threat: Threat) {
    await act(threat.id, async () => {
      const answer = await markMitigated(threat.id);
      if (answer.failed) {
        setWriteError(
          `Impossible de marquer « ${threat.title} » comme atténuée : ${failureReason(answer.status, answer.message)}.`,
        );
        return;
      }
      if (answer.data) replaceRow(answer.data);
      setNotice(`Menace « ${threat.title} » marquée comme atténuée.`);
      reload();
    });
  }

  async function remove(threat: Threat) {
    await act(threat.id, async () => {
      const answer = await deleteThreat(threat.id);
      if (answer.failed) {
        // The question stays open: the threat is still there.
        setWriteError(
          `La suppression de la menace « ${threat.title} » a échoué : ${failureReason(answer.status, answer.message)}.`,
        );
        return;
      }
      setConfirming(null);
      setNotice(`Menace « ${threat.title} » supprimée.`);
      reload();
    });
  }

  /** The form starts from the server's current version of the threat (GET by id), which also refreshes its row. */
  async function edit(threat: Threat) {
    await act(threat.id, async () => {
      setEditNote(null);
      const answer = await fetchThreat(threat.id);
      if (!answer.failed && answer.data) {
        replaceRow(answer.data);
        setEditing(answer.data);
        return;
      }
      if (answer.failed && answer.status === 404) {
        setWriteError(`La menace « ${threat.title} » n’existe plus sur le serveur.`);
        reload();
        return;
      }
      setEditNote(
        `Version à jour indisponible : ${answer.failed ? failureReason(answer.status, answer.message) : 'réponse vide'}. Le formulaire reprend la ligne affichée.`,
      );
      setEditing(threat);
    });
  }

  const outcome = list.data ?? null;
  const data = outcome?.data;
  const pages = data ? Math.max(1, data.pages) : 1;
  const filtered = !!(severity || status || text);

  return (
    <section className="page">
      <div className="vm-head">
        <h1>Menaces</h1>
        {canWrite && (
          <button
            type="button"
            className="btn primary"
            onClick={() => {
              setEditNote(null);
              setEditing('new');
            }}
          >
            Nouvelle menace
          </button>
        )}
      </div>

      <LoadStatus
        loaded={!!summary}
        error={summaryRead.error}
        failure="Impossible de charger la synthèse"
        loading="Chargement de la synthèse…"
      />
      {summary?.failed && (
        <FallbackNote
          subject="Synthèse indisponible"
          fallback="Les compteurs affichés sont à zéro par défaut."
          outcome={summary}
          retryLabel="Réessayer de charger la synthèse"
          onRetry={reload}
        />
      )}
      {summary && <SummaryPanel outcome={summary} />}

      {canWrite && editing && (
        <ThreatForm
          key={editing === 'new' ? 'new' : editing.id}
          threat={editing === 'new' ? undefined : editing}
          note={editing === 'new' ? null : editNote}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setNotice(
              editing === 'new' ? `Menace « ${saved.title} » créée.` : `Menace « ${saved.title} » enregistrée.`,
            );
            if (editing !== 'new') replaceRow(saved);
            setEditing(null);
            reload();
          }}
        />
      )}

      <h2>Liste des menaces</h2>
      <FilterBar
        label="Filtrer les menaces"
        filters={[
          {
            key: 'severity',
            label: 'Gravité',
            allLabel: 'Toutes',
            options: SEVERITIES.map((s) => [s, SEVERITY_LABELS[s]] as const),
          },
          { key: 'status', label: 'Statut', allLabel: 'Tous', options: Object.entries(THREAT_STATUS_LABELS) },
          { key: 'size', label: 'Par page', options: PAGE_SIZES.map((n) => [n, String(n)] as const) },
        ]}
        values={{ ...query, size }}
        onChange={(key, value) => update({ [key]: value })}
      >
        <SearchForm label="Recherche" className="threat-search" value={text} onSearch={(t) => update({ text: t })} />
      </FilterBar>

      <ActionMessages notice={notice} error={writeError ?? actionError} />
      <LoadStatus loaded={!!outcome} error={list.error} failure="Impossible de charger les menaces" />

      {outcome?.failed && (
        // Truth first: the fallback is an empty list, never to be read as "no threats".
        <FallbackNote
          subject="Menaces indisponibles"
          fallback="La liste affichée est vide par défaut."
          outcome={outcome}
          retryLabel="Réessayer de charger les menaces"
          onRetry={reload}
        />
      )}
      {outcome && !outcome.failed && data && (
        <>
          <DataOriginNote origin={outcome.origin} />
          <SampleScope origin={outcome.origin}>
            <p className="muted">
              <Figure>{NUMBER.format(data.total)}</Figure> {data.total === 1 ? 'menace' : 'menaces'}
            </p>
          </SampleScope>
          {data.results.length === 0 ? (
            <EmptyState>
              {filtered ? 'Aucune menace ne correspond à ces filtres.' : 'Aucune menace enregistrée.'}
            </EmptyState>
          ) : (
            <DataTable headers={['Titre', 'Type', 'Gravité', 'Statut', 'CVE', 'Actif', 'Créée le']} actions={canWrite}>
              {data.results.map((t) => (
                <tr key={t.id} data-threat-id={t.id}>
                  <th scope="row" className="vm-wrap">
                    {t.title}
                    {t.source && <span className="muted"> — {t.source}</span>}
                  </th>
                  <td>{label(THREAT_TYPES, t.threat_type)}</td>
                  <td>
                    <span className={`vm-badge ${t.severity}`}>{label(SEVERITY_LABELS, t.severity)}</span>
                  </td>
                  <td>
                    <span className={`vm-badge ${label(THREAT_STATUS_TONE, t.status)}`}>
                      {label(THREAT_STATUS_LABELS, t.status)}
                    </span>
                    {t.is_mitigated && t.mitigated_at && (
                      <span className="muted"> le {formatDate(t.mitigated_at)}</span>
                    )}
                  </td>
                  <td>{t.cve_id ? <a href={`/cve/${encodeURIComponent(t.cve_id)}`}>{t.cve_id}</a> : '—'}</td>
                  <td>{t.asset?.name ?? '—'}</td>
                  <td>{formatDate(t.created_at)}</td>
                  {canWrite && (
                    <td>
                      <DeletableRowActions
                        name={t.title}
                        question="Supprimer cette menace ?"
                        confirming={confirming === t.id}
                        busy={busy === t.id}
                        onAsk={() => setConfirming(t.id)}
                        onConfirm={() => void remove(t)}
                        onCancel={() => setConfirming(null)}
                      >
                        {!t.is_mitigated && (
                          <RowAction
                            action="mitigate"
                            text="Marquer comme atténuée"
                            name={t.title}
                            disabled={busy === t.id}
                            onClick={() => void mitigate(t)}
                          />
                        )}
                        <RowAction
                          action="edit"
                          text="Modifier"
                          name={t.title}
                          disabled={busy === t.id}
                          onClick={() => void edit(t)}
                        />
                      </DeletableRowActions>
                    </td>
                  )}
                </tr>
              ))}
            </DataTable>
          )}
          <Pager label="Pages des menaces" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
