import type { ReactNode } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { SampleScope, useIsSample } from '../../components/sample-scope.tsx';
import { SeverityDonut, TrendLine } from '../../components/charts/index.tsx';
import { matrixOfCells, RiskMatrix } from '../../components/risk-matrix.tsx';
import { NOTIFICATION_LEVEL_LABELS } from '../../../contract/levels.ts';
import {
  findingSeverityLabel,
  SEVERITY_FULL_LABELS,
  isFindingSeverity,
  isSeverity,
} from '../../../contract/severity.ts';
import { SSVC_LABELS } from '../../../contract/ssvc.ts';
import type { BackgroundTask } from '../../features/tasks/tasks-api.ts';
import { isRunning, taskStatusLabel } from '../../features/tasks/task-rules.ts';
import type { ThreatSummary } from '../../features/threats/threats-api.ts';
import type { SlaReport } from '../../features/vulnerabilities/api/vulnerabilities.ts';
import type { Vulnerability } from '../../features/vulnerabilities/api/types.ts';
import type { DataOrigin } from '../../lib/api-client.ts';
import type { KioskTheme, PanelId } from './kiosk-config.ts';
import type {
  DashboardSummary,
  FindingQueue,
  RiskMap,
  SeverityCounts,
  VulnerabilitySummary,
  WallEvent,
} from './kiosk-data.ts';
import type { PanelState } from './kiosk-hooks.ts';
import { dateFormat } from '../../lib/format.ts';

const NUMBER = new Intl.NumberFormat('fr-FR');
const TIME = dateFormat({ hour: '2-digit', minute: '2-digit' });
const DAY_TIME = dateFormat({
  day: '2-digit',
  month: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const RELATIVE = new Intl.RelativeTimeFormat('fr-FR', { style: 'short' });

/**
 * {stamp: 'de 14:05' (or 'du 02/06 14:05' another day), ago: 'il y a 3 min'}. « à l’instant » only for data this
 * screen has `justReceived` from the server: a kept copy or an event time under a minute old is « il y a moins
 * d’une minute ».
 */
export function timeAgo(at: number, now: number, justReceived = false): { stamp: string; ago: string } {
  const when = new Date(at);
  const sameDay = new Date(now).toDateString() === when.toDateString();
  const stamp = sameDay ? `de ${TIME.format(when)}` : `du ${DAY_TIME.format(when)}`;
  const minutes = Math.max(0, Math.floor((now - at) / 60_000));
  let ago: string;
  if (minutes < 1) ago = justReceived ? 'à l’instant' : 'il y a moins d’une minute';
  else if (minutes < 60) ago = RELATIVE.format(-minutes, 'minute');
  else if (minutes < 48 * 60) ago = RELATIVE.format(-Math.floor(minutes / 60), 'hour');
  else ago = RELATIVE.format(-Math.floor(minutes / 1440), 'day');
  return { stamp, ago };
}

/** 'Données de 14:05, il y a 3 min' ('à l’instant' only when `justReceived`). */
export function dataAge(at: number, now: number, justReceived = false): string {
  const { stamp, ago } = timeAgo(at, now, justReceived);
  return `Données ${stamp}, ${ago}`;
}

/**
 * When the data shown was made: a kept copy's stored time, else the moment the answer arrived. Undefined for sample
 * data (nobody's data has no age) and for a kept copy that does not say when it was kept.
 */
export function dataTime(state: PanelState | undefined): number | undefined {
  const origin: DataOrigin | undefined = state?.origin;
  if (!origin || origin.source === 'sample') return undefined;
  if (origin.source === 'cache') return origin.storedAt;
  return state?.fetchedAt;
}

function since(prefix: string, at: number, now: number): string {
  const { stamp, ago } = timeAgo(at, now);
  return `${prefix} ${stamp.replace(/^d[eu] /, stamp.startsWith('du') ? 'le ' : 'à ')} (${ago})`;
}

function Figure({ label, value, tone }: { label: string; value: number | undefined; tone?: string }) {
  const sample = useIsSample();
  return (
    <div className={`kiosk-figure${tone ? ` ${tone}` : ''}`}>
      <span className="kiosk-figure-value" data-figure="">
        {value === undefined ? '—' : NUMBER.format(value)}
      </span>
      {sample && (
        <span className="sample-mark kiosk-sample-mark" data-sample-mark="">
          exemple
        </span>
      )}
      <span className="kiosk-figure-label">{label}</span>
    </div>
  );
}

function VulnerabilitiesPanel({ data, theme }: { data: VulnerabilitySummary; theme: KioskTheme }) {
  const d = data.severity_distribution;
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures">
        <Figure label="Vulnérabilités ouvertes" value={data.open_count ?? data.total_vulnerabilities} />
        <Figure label={SSVC_LABELS.act} value={data.ssvc_act_count} tone="act" />
        <Figure label="Critiques" value={d.critical} tone="critical" />
        <Figure label="Élevées" value={d.high} tone="high" />
        <Figure label="Non évaluées" value={d.unrated} tone="unrated" />
        <Figure label="Exploitées (KEV)" value={data.kev_count} tone="kev" />
      </div>
      <div className="kiosk-chart">
        <SeverityDonut distribution={d} size="large" theme={theme} title="Par gravité" />
      </div>
      <div className="kiosk-chart kiosk-wide">
        <TrendLine
          points={data.vulnerability_trends}
          label="Nouvelles vulnérabilités par jour"
          size="large"
          theme={theme}
        />
      </div>
    </div>
  );
}

const THREAT_STATUS: Record<string, string> = {
  ACTIVE: 'Actives',
  INVESTIGATING: 'En investigation',
  MITIGATED: 'Atténuées',
  CLOSED: 'Clôturées',
};

function ThreatsPanel({ data, theme }: { data: ThreatSummary; theme: KioskTheme }) {
  const distribution: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const s of data.by_severity)
    if (s.severity in distribution) distribution[s.severity as keyof SeverityCounts] = s.count;
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures">
        <Figure label="Menaces" value={data.threats_count} />
        {data.by_status.map((s) => (
          <Figure
            key={s.status}
            label={THREAT_STATUS[s.status] ?? s.status}
            value={s.count}
            tone={s.status === 'ACTIVE' ? 'critical' : undefined}
          />
        ))}
      </div>
      <div className="kiosk-chart">
        <SeverityDonut distribution={distribution} size="large" theme={theme} title="Par gravité" />
      </div>
      <div className="kiosk-list kiosk-wide">
        <h2>Menaces récentes</h2>
        {data.recent_threats.length === 0 ? (
          <p className="kiosk-muted">Aucune menace récente.</p>
        ) : (
          <ul>
            {data.recent_threats.map((t) => (
              <li key={t.id}>
                <span className={`kiosk-sev ${t.severity}`}>
                  {isSeverity(t.severity) ? SEVERITY_FULL_LABELS[t.severity] : t.severity}
                </span>
                <span>{t.title}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function TasksPanel({ data }: { data: BackgroundTask[] }) {
  const running = data.filter((t) => isRunning(t.status));
  const failed = data.filter((t) => t.status === 'FAILURE');
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures">
        <Figure label="En cours ou en attente" value={running.length} tone="running" />
        <Figure label="En échec (récentes)" value={failed.length} tone={failed.length > 0 ? 'critical' : undefined} />
      </div>
      <div className="kiosk-list kiosk-wide">
        <h2>En cours</h2>
        {running.length === 0 ? (
          <p className="kiosk-muted">Aucune tâche en cours.</p>
        ) : (
          <ul>
            {running.map((t) => {
              const value = Math.max(0, Math.min(100, Math.round(t.meta?.progress ?? 0)));
              return (
                <li key={t.id} className="kiosk-task">
                  <span>{t.name}</span>
                  <span className="kiosk-muted">{taskStatusLabel(t.status)}</span>
                  <span
                    className="kiosk-bar"
                    role="progressbar"
                    aria-label={`Progression : ${t.name}`}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={value}
                  >
                    <span style={{ width: `${value}%` }} />
                  </span>
                  <strong>{NUMBER.format(value)} %</strong>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <div className="kiosk-list kiosk-wide">
        <h2>Échecs récents</h2>
        {failed.length === 0 ? (
          <p className="kiosk-muted">Aucun échec récent.</p>
        ) : (
          <ul>
            {failed.map((t) => (
              <li key={t.id}>
                <span className="kiosk-sev critical">Échec</span>
                <span>
                  {t.name}
                  {t.meta?.error && <span className="kiosk-muted"> — {t.meta.error}</span>}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function FindingRow({ finding }: { finding: Vulnerability }) {
  const severity = isFindingSeverity(finding.severity) ? finding.severity : undefined;
  return (
    <li className="kiosk-finding">
      <span className={`kiosk-sev ${severity ?? ''}`}>{findingSeverityLabel(finding.severity)}</span>
      <span className="kiosk-finding-id">{finding.cve_id ?? '—'}</span>
      <span className="kiosk-finding-title">
        {finding.title}
        {finding.asset && <span className="kiosk-muted"> — {finding.asset.name}</span>}
      </span>
      <strong className="kiosk-finding-score">
        {finding.cvss_score === null ? '—' : SCORE.format(finding.cvss_score)}
      </strong>
    </li>
  );
}

const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** The SSVC « Act » queue or the KEV matches: how many are open, and the worst ten. */
function QueuePanel({ data, label, empty, tone }: { data: FindingQueue; label: string; empty: string; tone: string }) {
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures kiosk-wide">
        <Figure label={label} value={data.count} tone={data.count > 0 ? tone : undefined} />
      </div>
      <div className="kiosk-list kiosk-wide">
        <h2>Les plus graves (score CVSS)</h2>
        {data.results.length === 0 ? (
          <p className="kiosk-muted">{empty}</p>
        ) : (
          <ul>
            {data.results.map((f) => (
              <FindingRow key={f.id} finding={f} />
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

const PERCENT = new Intl.NumberFormat('fr-FR', { style: 'percent', maximumFractionDigits: 0 });

/** Overdue actions (the SLA report): past their due date, due within a week, and the share fixed in time. */
function OverduePanel({ data }: { data: SlaReport }) {
  const rate = data.resolved_in_window > 0 ? data.resolved_on_time / data.resolved_in_window : null;
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures kiosk-wide">
        <Figure label="En retard" value={data.overdue} tone={data.overdue > 0 ? 'critical' : undefined} />
        <Figure label="À échéance sous 7 jours" value={data.due_soon} tone={data.due_soon > 0 ? 'high' : undefined} />
        <Figure label="Ouvertes avec échéance" value={data.open_with_due_date} />
      </div>
      <p className="kiosk-muted kiosk-wide">
        {rate === null
          ? `Aucune vulnérabilité à échéance résolue sur les ${data.window_days} derniers jours`
          : `Corrigées dans les délais (${data.window_days} derniers jours) : ${PERCENT.format(rate)} (${NUMBER.format(data.resolved_on_time)} sur ${NUMBER.format(data.resolved_in_window)})`}
      </p>
    </div>
  );
}

/** The projects' open risks on the 4 × 4 matrix, before and after their treatment; the counts beside them. */
function RisksPanel({ data }: { data: RiskMap }) {
  return (
    <div className="kiosk-risks">
      <div className="kiosk-figures kiosk-risk-figures">
        <Figure label="Risques ouverts" value={data.open} tone={data.open > 0 ? 'high' : undefined} />
        <Figure label="Projets concernés" value={data.projects} />
      </div>
      {data.open === 0 ? (
        <p className="kiosk-muted">Aucun risque ouvert dans les projets.</p>
      ) : (
        <>
          <RiskMatrix matrix={matrixOfCells(data.initial)} caption="Risque initial" />
          <RiskMatrix matrix={matrixOfCells(data.residual)} caption="Risque résiduel (après traitement)" />
        </>
      )}
    </div>
  );
}

const EVENT_KINDS: Record<WallEvent['kind'], string> = {
  critical_vulnerability: 'Vulnérabilité critique',
  kev_match: 'KEV',
  task_failed: 'Tâche en échec',
  message: 'Message',
};

/** « il y a 3 h » within a day, else the day and time (« 01/06 08:05 »). */
function eventTime(at: number, now: number): string {
  return now - at < 24 * 3600_000 ? timeAgo(at, now).ago : DAY_TIME.format(new Date(at));
}

/** The team's last events (critical findings, KEV matches, failed tasks, managers' messages to everyone). */
function EventsPanel({ data, now }: { data: WallEvent[]; now: number }) {
  return (
    <div className="kiosk-grid">
      <div className="kiosk-list kiosk-wide">
        <h2>Alertes des 30 derniers jours</h2>
        {data.length === 0 ? (
          <p className="kiosk-muted">Aucune alerte depuis 30 jours.</p>
        ) : (
          <ul>
            {data.map((e) => {
              const at = Date.parse(e.created_at);
              return (
                <li key={e.id} className="kiosk-event">
                  <span
                    className={`kiosk-sev ${e.level === 'critical' ? 'critical' : e.level === 'warning' ? 'high' : 'info'}`}
                  >
                    {NOTIFICATION_LEVEL_LABELS[e.level] ?? e.level}
                  </span>
                  <span className="kiosk-event-kind">{EVENT_KINDS[e.kind] ?? ''}</span>
                  <span className="kiosk-finding-title">{e.title}</span>
                  {!Number.isNaN(at) && <span className="kiosk-muted kiosk-event-time">{eventTime(at, now)}</span>}
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </div>
  );
}

function OverviewPanel({ data, now }: { data: DashboardSummary; now: number }) {
  const v = data.vulnerabilities ?? {};
  const lastScan = data.scans?.last_completed_at ? Date.parse(data.scans.last_completed_at) : NaN;
  const lastCve = data.last_cve_update ? Date.parse(data.last_cve_update) : NaN;
  return (
    <div className="kiosk-grid">
      <div className="kiosk-figures kiosk-wide">
        <Figure label="Vulnérabilités ouvertes" value={v.open} />
        <Figure label="Critiques" value={v.critical} tone="critical" />
        <Figure label="Élevées" value={v.high} tone="high" />
        <Figure label="Exploitées (KEV)" value={v.kev} tone="kev" />
        <Figure label="Actifs" value={data.assets?.total} />
        <Figure label="Actifs critiques" value={data.assets?.critical} />
        <Figure label="Menaces actives" value={data.threats?.active} tone="critical" />
        <Figure label="Scans en cours" value={data.scans?.running} tone="running" />
        <Figure label="Tâches en cours" value={data.tasks?.running} tone="running" />
        <Figure
          label="Tâches en échec (24 h)"
          value={data.tasks?.failed_24h}
          tone={(data.tasks?.failed_24h ?? 0) > 0 ? 'critical' : undefined}
        />
      </div>
      <p className="kiosk-muted kiosk-wide">
        {Number.isNaN(lastScan) ? 'Aucun scan terminé' : since('Dernier scan terminé', lastScan, now)}
        {' · '}
        {Number.isNaN(lastCve) ? 'Base CVE jamais mise à jour' : since('Base CVE mise à jour', lastCve, now)}
      </p>
    </div>
  );
}

function renderPanel(id: PanelId, state: PanelState, now: number, theme: KioskTheme): ReactNode {
  switch (id) {
    case 'vulnerabilities':
      return <VulnerabilitiesPanel data={state.data as VulnerabilitySummary} theme={theme} />;
    case 'act':
      return (
        <QueuePanel
          data={state.data as FindingQueue}
          label="Vulnérabilités ouvertes à traiter maintenant (Act)"
          empty="Aucune vulnérabilité ouverte à traiter maintenant."
          tone="act"
        />
      );
    case 'kev':
      return (
        <QueuePanel
          data={state.data as FindingQueue}
          label="Vulnérabilités ouvertes exploitées (KEV)"
          empty="Aucune vulnérabilité ouverte au catalogue KEV."
          tone="kev"
        />
      );
    case 'overdue':
      return <OverduePanel data={state.data as SlaReport} />;
    case 'threats':
      return <ThreatsPanel data={state.data as ThreatSummary} theme={theme} />;
    case 'tasks':
      return <TasksPanel data={state.data as BackgroundTask[]} />;
    case 'risks':
      return <RisksPanel data={state.data as RiskMap} />;
    case 'events':
      return <EventsPanel data={state.data as WallEvent[]} now={now} />;
    case 'overview':
      return <OverviewPanel data={state.data as DashboardSummary} now={now} />;
  }
}

/** One panel: its data (the last good answer), its age, its origin, and a note when the last refresh failed. */
export function KioskPanel({
  id,
  state,
  now,
  theme = 'dark',
}: {
  id: PanelId;
  state: PanelState | undefined;
  now: number;
  theme?: KioskTheme;
}) {
  const at = dataTime(state);
  // « à l'instant » only for an answer the server itself gave this screen, and not when a refresh failed since.
  const justReceived = state?.origin?.source === 'network' && !state.error;
  return (
    <div className="kiosk-panel-body" data-panel={id}>
      <div className="kiosk-meta">
        {/* Sample data has no age worth reading: it is nobody's data. */}
        {at !== undefined && <span className="kiosk-age">{dataAge(at, now, justReceived)}</span>}
        {at === undefined && state?.origin?.source === 'cache' && (
          <span className="kiosk-age">Données conservées, date inconnue</span>
        )}
        <DataOriginNote origin={state?.origin} />
        {state?.error && state.data !== undefined && (
          <span className="kiosk-stale">Mise à jour impossible ({state.error}) — dernières données affichées</span>
        )}
      </div>
      {state?.origin?.source === 'sample' && (
        // Across a room a small tag is not read: sample figures are announced in the panel's own type size.
        <p className="kiosk-sample" role="status">
          Exemple — ces chiffres ne sont pas ceux de votre organisation
        </p>
      )}
      {state?.data !== undefined ? (
        <SampleScope origin={state.origin}>{renderPanel(id, state, now, theme)}</SampleScope>
      ) : state?.error ? (
        <p className="kiosk-unavailable">Données indisponibles ({state.error}). Nouvelle tentative automatique.</p>
      ) : (
        <p className="kiosk-unavailable">Chargement…</p>
      )}
    </div>
  );
}
