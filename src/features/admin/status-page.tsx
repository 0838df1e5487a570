import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { LOG_LEVEL_LABELS } from '../../../contract/levels.ts';
import { usePolling } from '../../lib/use-polling.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import {
  fetchHealth,
  fetchStatus,
  fetchSystemLogs,
  SYSTEM_LOGS_SHOWN,
  type AdminRead,
  type PartStatus,
  type ServiceHealth,
  type SystemLogLine,
  type SystemStatus,
} from './admin-api.ts';
import { formatBytes, formatDateTime, formatUptime, LOG_LEVEL_BADGES, NUMBER } from './format.ts';

/** How often the page reads the status again while it is visible and online. */
export const STATUS_REFRESH_MS = 15_000;

const PART_LABELS: Record<string, string> = { ok: 'Opérationnel', down: 'Hors service' };

function Badge({ part }: { part: PartStatus | undefined }) {
  const status = part?.status;
  const kind = status === 'ok' ? 'ok' : status === 'down' ? 'failed' : '';
  return (
    <span className={`vm-badge ${kind}`} data-status={status ?? 'unknown'}>
      {status ? (PART_LABELS[status] ?? status) : 'Inconnu'}
    </span>
  );
}

/** One probed part; `part` null = a counter with nothing to probe (no badge). */
function Part({ title, part, children }: { title: string; part: PartStatus | undefined | null; children: ReactNode }) {
  return (
    <section className="card admin-part" aria-label={title}>
      <h2>
        {title} {part !== null && <Badge part={part} />}
      </h2>
      {part?.error && (
        <p className="error" role="alert">
          {part.error}
        </p>
      )}
      <dl className="admin-dl">{children}</dl>
    </section>
  );
}

const num = (v: number | undefined | null) => (typeof v === 'number' ? NUMBER.format(v) : '—');

function useOnline(): boolean {
  const [online, setOnline] = useState(() => (typeof navigator === 'undefined' ? true : navigator.onLine));
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    window.addEventListener('online', on);
    window.addEventListener('offline', off);
    return () => {
      window.removeEventListener('online', on);
      window.removeEventListener('offline', off);
    };
  }, []);
  return online;
}

function useHidden(): boolean {
  const [hidden, setHidden] = useState(() => typeof document !== 'undefined' && document.hidden);
  useEffect(() => {
    const change = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', change);
    return () => document.removeEventListener('visibilitychange', change);
  }, []);
  return hidden;
}

/**
 * The service's own word (GET /system/health/) as a part: ok, or down with why. It answers even when the status
 * cannot be read (it needs no session), so a refused or failed status read still says whether the service runs.
 */
function HealthPart({ health }: { health: AdminRead<ServiceHealth> }) {
  const h = health.data;
  const up = h.status === 'ok';
  const part: PartStatus = {
    status: up ? 'ok' : 'down',
    ...(up ? {} : { error: h.detail ?? `Le service ne répond pas : ${health.error ?? 'réponse inattendue'}` }),
  };
  return (
    <Part title="Disponibilité du service" part={part}>
      <dt>Base de données</dt>
      <dd>{h.database === 'ok' ? 'Opérationnel' : h.database === 'down' ? 'Hors service' : '—'}</dd>
      <dt>Version</dt>
      <dd>{h.version ?? '—'}</dd>
    </Part>
  );
}

/** The newest warnings and worse of the platform's log (GET /system/logs/), with the way to the full console. */
function LatestProblems({ read }: { read: AdminRead<{ logs: SystemLogLine[]; total: number }> }) {
  const { logs, total } = read.data;
  return (
    <section className="card admin-part admin-part-wide" aria-label="Derniers incidents">
      <h2>Derniers incidents</h2>
      {read.error ? (
        <p className="error" role="alert">
          Impossible de lire les derniers incidents : {read.error}
        </p>
      ) : logs.length === 0 ? (
        <p className="muted">Aucun avertissement ni erreur dans le journal.</p>
      ) : (
        <>
          <p className="muted">
            Avertissements et erreurs, les plus récents d’abord
            {total > logs.length ? ` (${NUMBER.format(logs.length)} sur ${NUMBER.format(total)})` : ''}.
          </p>
          <ul className="admin-incidents">
            {logs.map((line) => (
              <li key={line.id} data-log-id={line.id}>
                <time dateTime={line.time}>{formatDateTime(line.time)}</time>{' '}
                <span className={`vm-badge ${LOG_LEVEL_BADGES[line.level] ?? ''}`}>
                  {(LOG_LEVEL_LABELS as Record<string, string>)[line.level] ?? line.level}
                </span>{' '}
                <span className="admin-wrap">{line.message}</span>
                {typeof line.status_code === 'number' && <span className="muted"> ({line.status_code})</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      <p>
        <Link href="/admin/logs?min_level=warning">Voir les journaux du serveur</Link>
      </p>
    </section>
  );
}

/**
 * État du système: every part with an ok/down badge, the service's health and the latest problems of its log, read
 * again every 15 s while visible and online.
 */
export default function StatusPage() {
  const online = useOnline();
  const hidden = useHidden();
  const read = useResource(async () => {
    const [answer, health, problems] = await Promise.all([
      fetchStatus(),
      fetchHealth(),
      fetchSystemLogs(SYSTEM_LOGS_SHOWN),
    ]);
    // A cached answer is as old as its copy, not as the moment it was shown again.
    const at = answer.origin?.source === 'cache' && answer.origin.storedAt ? answer.origin.storedAt : Date.now();
    return { ...answer, data: { status: answer.data, health, problems, readAt: at } };
  }, []);
  const readAt = read.data?.readAt ?? null;
  const running = useRef<Promise<void> | null>(null);
  // One read at a time: a manual refresh during a poll joins it.
  const refresh = () =>
    (running.current ??= read.refresh().finally(() => {
      running.current = null;
    }));

  // Back online: read at once rather than waiting for the next tick.
  const wasOnline = useRef(online);
  useEffect(() => {
    if (online && !wasOnline.current) void refresh();
    wasOnline.current = online;
  });
  usePolling(online, STATUS_REFRESH_MS, refresh);

  const s: SystemStatus = read.data?.status ?? {};
  const empty = !!read.data && Object.keys(s).length === 0;
  const disk = s.disk;
  const usedPercent =
    disk && typeof disk.total_bytes === 'number' && disk.total_bytes > 0 && typeof disk.free_bytes === 'number'
      ? Math.round(((disk.total_bytes - disk.free_bytes) / disk.total_bytes) * 100)
      : null;

  return (
    <section className="admin-page">
      <div className="vm-head">
        <h1>État du système</h1>
        <button type="button" className="btn secondary" onClick={() => void refresh()}>
          Actualiser
        </button>
      </div>
      <p className="muted" role="status" data-polling={online && !hidden ? 'on' : 'paused'}>
        {!online
          ? 'Actualisation automatique en pause : hors ligne.'
          : hidden
            ? 'Actualisation automatique en pause : page masquée.'
            : `Actualisation automatique toutes les ${STATUS_REFRESH_MS / 1000} s.`}
        {readAt !== null && ` Dernière lecture : ${formatDateTime(new Date(readAt).toISOString())}.`}
      </p>
      {!read.data && <p role="status">Chargement de l’état du système…</p>}
      {read.error && (
        <p className="error" role="alert">
          Impossible de lire l’état du système : {read.error}
        </p>
      )}
      {read.data && <DataOriginNote origin={read.origin} />}
      {empty && <p className="vm-empty card">Aucune information d’état disponible.</p>}
      {read && !empty && (
        <>
          <div className="admin-summary card">
            <p>
              État général :{' '}
              <span
                className={`vm-badge ${s.status === 'ok' ? 'ok' : s.status === 'degraded' ? 'failed' : ''}`}
                data-status={s.status ?? 'unknown'}
              >
                {s.status === 'ok' ? 'Opérationnel' : s.status === 'degraded' ? 'Dégradé' : (s.status ?? 'Inconnu')}
              </span>
            </p>
            <dl className="admin-dl">
              <dt>Version</dt>
              <dd>{s.version ?? '—'}</dd>
              <dt>Démarré depuis</dt>
              <dd>{formatUptime(s.uptime_seconds)}</dd>
              <dt>Node.js</dt>
              <dd>{s.node_version ?? '—'}</dd>
              <dt>Mode maintenance</dt>
              <dd>{s.maintenance_mode === true ? 'Actif' : s.maintenance_mode === false ? 'Inactif' : 'Inconnu'}</dd>
              <dt>Vérifié le</dt>
              <dd>{formatDateTime(s.checked_at)}</dd>
            </dl>
          </div>
          <div className="admin-parts">
            <Part title="Base de données" part={s.database}>
              <dt>Moteur</dt>
              <dd>{s.database?.kind === 'pglite' ? 'PGlite' : s.database?.kind === 'postgres' ? 'PostgreSQL' : '—'}</dd>
              <dt>Latence</dt>
              <dd>{typeof s.database?.latency_ms === 'number' ? `${NUMBER.format(s.database.latency_ms)} ms` : '—'}</dd>
              <dt>Taille</dt>
              <dd>{formatBytes(s.database?.size_bytes)}</dd>
            </Part>
            <Part title="File de tâches" part={s.job_queue}>
              <dt>Tâches en attente</dt>
              <dd data-field="queue_depth">{num(s.job_queue?.queue_depth)}</dd>
              <dt>En cours</dt>
              <dd>{num(s.job_queue?.active)}</dd>
              <dt>Échecs (24 h)</dt>
              <dd>{num(s.job_queue?.failed_last_24h)}</dd>
              <dt>Exécution par ce serveur</dt>
              <dd>{s.job_queue?.workers === true ? 'Oui' : s.job_queue?.workers === false ? 'Non' : '—'}</dd>
            </Part>
            <Part title="Disque" part={s.disk}>
              <dt>Espace libre</dt>
              <dd>
                {formatBytes(disk?.free_bytes)} sur {formatBytes(disk?.total_bytes)}
              </dd>
              <dt>Occupation</dt>
              <dd>{usedPercent === null ? '—' : `${NUMBER.format(usedPercent)} %`}</dd>
              <dt>Dossier</dt>
              <dd>{disk?.path ?? '—'}</dd>
            </Part>
            <Part title="Base CVE" part={s.cve_database}>
              <dt>Dernière mise à jour</dt>
              <dd>{s.cve_database?.last_update ? formatDateTime(s.cve_database.last_update) : 'Jamais'}</dd>
            </Part>
            <Part title="Comptes" part={s.counts}>
              <dt>Organisations</dt>
              <dd>{num(s.counts?.tenants)}</dd>
              <dt>Comptes</dt>
              <dd>{num(s.counts?.users)}</dd>
              <dt>Comptes actifs</dt>
              <dd>{num(s.counts?.active_users)}</dd>
            </Part>
            <Part title="Journaux serveur" part={null}>
              <dt>En attente d’écriture</dt>
              <dd>{num(s.logs?.buffered)}</dd>
              <dt>Écrites</dt>
              <dd>{num(s.logs?.written)}</dd>
              <dt>Perdues</dt>
              <dd>{num(s.logs?.dropped)}</dd>
            </Part>
          </div>
        </>
      )}
      {read.data && (
        <div className="admin-parts">
          <HealthPart health={read.data.health} />
          <LatestProblems read={read.data.problems} />
        </div>
      )}
    </section>
  );
}
