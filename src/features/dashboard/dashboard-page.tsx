import { useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { RetryError } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { matrixOfCells, RiskMatrix } from '../../components/risk-matrix.tsx';
import { Figure, SampleScope, useIsSample } from '../../components/sample-scope.tsx';
import { KevBadge, SeverityBadge } from '../../components/severity-badges.tsx';
import { tenantRoleOf, roleLabel } from '../../lib/auth/roles.ts';
import { currentTenantId, greetingName, session } from '../../lib/auth/session.ts';
import { formatDateTime, formatDay, NUMBER, plural } from '../../lib/format.ts';
import { usePolling } from '../../lib/use-polling.ts';
import { useResource, type Resource } from '../../lib/use-resource.ts';
import {
  fetchHomeSummary,
  fetchHomeWork,
  fetchPriorityFindings,
  fetchRecentNotifications,
  type HomeSummary,
  type HomeWork,
  type PriorityFinding,
  type RecentNotification,
  type WorkItem,
} from './dashboard-api.ts';
import './dashboard.css';

/** The home page follows what changes while it stays open: every minute, never while the tab is hidden. */
const REFRESH_MS = 60_000;
const LIST = '/vulnerabilities/list';

const listHref = (params: Record<string, string>) => `${LIST}?${new URLSearchParams(params).toString()}`;

/**
 * The home dashboard (« Tableau de bord »): the tenant's headline figures, the user's own open work, the open
 * critical findings, the risk heat map of the projects they can read and their recent notifications. Each part
 * loads and fails on its own, and says where its data comes from (live, cached with its age, sample).
 */
export default function DashboardPage() {
  useSignals();
  const profile = session.value?.profile;
  const tenant = currentTenantId() ?? '';
  const summary = useResource(fetchHomeSummary, [tenant], { keepPrevious: true });
  const work = useResource(fetchHomeWork, [tenant], { keepPrevious: true });
  const findings = useResource(fetchPriorityFindings, [tenant], { keepPrevious: true });
  const notices = useResource(fetchRecentNotifications, [tenant], { keepPrevious: true });
  usePolling(true, REFRESH_MS, () =>
    Promise.all([summary.refresh(), work.refresh(), findings.refresh(), notices.refresh()]),
  );
  if (!profile) return null;
  const tenantName = profile.current_tenant?.name ?? profile.tenants?.find((t) => t.id === tenant)?.name;
  const loading = [summary, work, findings, notices].some((r) => r.loading);

  return (
    <section className="page page-wide home-page" aria-busy={loading}>
      <header className="home-head">
        <h1>Bonjour, {greetingName(profile)}</h1>
        <p className="muted">
          <span>{tenantName ?? 'Aucune organisation'}</span> · <span>{roleLabel(tenantRoleOf(profile, tenant))}</span>
        </p>
      </header>

      <Part resource={summary} what="les chiffres clés" className="home-figures">
        {(data) => <Figures summary={data} />}
      </Part>

      <div className="dashboard-grid home-grid">
        <Card id="home-work" title="Mon travail" className="span-2">
          <Part resource={work} what="votre travail">
            {(data) => <MyWork work={data.work} />}
          </Part>
        </Card>
        <Card id="home-risks" title="Carte des risques">
          <Part resource={work} what="la carte des risques" quiet>
            {(data) => <RiskHeat risks={data.risks} />}
          </Part>
        </Card>
        <Card id="home-critical" title="Critiques à traiter" className="span-2">
          <Part resource={findings} what="les vulnérabilités critiques">
            {(data) => <CriticalFindings count={data.count} findings={data.results} />}
          </Part>
        </Card>
        <Card id="home-notices" title="Notifications récentes">
          <Part resource={notices} what="les notifications">
            {(data) => <RecentNotices notices={data} />}
          </Part>
        </Card>
      </div>
    </section>
  );
}

function Card({
  id,
  title,
  className,
  children,
}: {
  id: string;
  title: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section className={`card home-card ${className ?? ''}`} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * One answer on the page: loading, its error with a retry, or its data with where it comes from. `quiet` leaves
 * the origin note to the other part showing the same answer.
 */
function Part<T>({
  resource,
  what,
  className,
  quiet = false,
  children,
}: {
  resource: Resource<T>;
  what: string;
  className?: string;
  quiet?: boolean;
  children: (data: T) => ReactNode;
}) {
  const { state, data, origin } = resource;
  if (data === undefined) {
    if (state.status === 'error') {
      return (
        <RetryError
          className="home-error"
          message={`Impossible de charger ${what} : ${state.message}`}
          onRetry={() => void resource.refresh()}
        />
      );
    }
    return <p role="status">Chargement…</p>;
  }
  return (
    <>
      {!quiet && <DataOriginNote origin={origin} />}
      <SampleScope origin={origin} className={className}>
        {children(data)}
      </SampleScope>
    </>
  );
}

function Figures({ summary }: { summary: HomeSummary }) {
  const v = summary.vulnerabilities;
  const tiles: { href: string; value: number; one: string; many: string; tone?: string; testId: string }[] = [
    {
      href: listHref({ is_resolved: 'false' }),
      value: v.open,
      one: 'vulnérabilité ouverte',
      many: 'vulnérabilités ouvertes',
      testId: 'home-open',
    },
    {
      href: listHref({ severity: 'critical', is_resolved: 'false' }),
      value: v.critical,
      one: 'critique',
      many: 'critiques',
      tone: 'tile-critical',
      testId: 'home-critical',
    },
    {
      href: listHref({ kev: 'true', is_resolved: 'false' }),
      value: v.kev,
      one: 'activement exploitée (KEV)',
      many: 'activement exploitées (KEV)',
      tone: 'tile-kev',
      testId: 'home-kev',
    },
    {
      href: '/threats',
      value: summary.threats.active,
      one: 'menace active',
      many: 'menaces actives',
      testId: 'home-threats',
    },
    {
      href: '/scans',
      value: summary.scans.running,
      one: 'scan en cours',
      many: 'scans en cours',
      testId: 'home-scans',
    },
    {
      href: '/tasks',
      value: summary.tasks.failed_24h,
      one: 'tâche en échec (24 h)',
      many: 'tâches en échec (24 h)',
      tone: summary.tasks.failed_24h > 0 ? 'tile-critical' : '',
      testId: 'home-failed',
    },
  ];
  return (
    <>
      <ul className="stat-tiles" aria-label="Chiffres clés">
        {tiles.map((t) => (
          <li key={t.testId} className={t.tone || undefined}>
            <Link href={t.href}>
              <Figure testId={t.testId}>{NUMBER.format(t.value)}</Figure>
              <span>{t.value > 1 ? t.many : t.one}</span>
            </Link>
          </li>
        ))}
      </ul>
      <p className="home-facts muted">
        {summary.last_cve_update ? (
          <>
            Base CVE mise à jour le{' '}
            <time dateTime={summary.last_cve_update}>{formatDateTime(summary.last_cve_update)}</time>
          </>
        ) : (
          'Base CVE jamais mise à jour'
        )}{' '}
        · <Link href="/tasks">Tâches de fond</Link> · Chiffres calculés le{' '}
        <time dateTime={summary.generated_at}>{formatDateTime(summary.generated_at)}</time>
      </p>
    </>
  );
}

const KIND_LABELS: Record<WorkItem['kind'], string> = { task: 'Tâche', action: 'Action corrective' };
const KIND_TABS: Record<WorkItem['kind'], string> = { task: 'tasks', action: 'remediation' };

function MyWork({ work }: { work: HomeWork['work'] }) {
  if (work.total === 0) {
    return <p className="muted">Aucune tâche ni action corrective ouverte ne vous est assignée.</p>;
  }
  const more = work.total - work.items.length;
  return (
    <>
      <p className="home-work-count">
        {plural(work.total, 'élément ouvert', 'éléments ouverts')}
        {work.overdue > 0 && (
          <>
            {' '}
            · <strong className="home-late">{plural(work.overdue, 'en retard', 'en retard')}</strong>
          </>
        )}
      </p>
      <ul className="home-work">
        {work.items.map((w) => (
          <li key={`${w.kind}-${w.id}`} className={w.overdue ? 'overdue' : undefined} data-kind={w.kind}>
            <span className="home-kind">{KIND_LABELS[w.kind]}</span>
            <Link href={`/projects/${w.project.id}?tab=${KIND_TABS[w.kind]}`} className="home-work-title">
              {w.title}
            </Link>
            <span className="muted home-work-project">{w.project.name}</span>
            <span className="home-due">
              {w.due_date ? (
                <>
                  Échéance <time dateTime={w.due_date}>{formatDay(w.due_date)}</time>
                </>
              ) : (
                'Sans échéance'
              )}
              {w.overdue && <span className="home-late-badge">En retard</span>}
            </span>
            <ProgressBar label={`Avancement de « ${w.title} »`} value={w.progress} />
          </li>
        ))}
      </ul>
      {more > 0 && (
        <p className="muted small">
          Et {plural(more, 'autre élément', 'autres éléments')} dans <Link href="/projects">vos projets</Link>.
        </p>
      )}
    </>
  );
}

function RiskHeat({ risks }: { risks: HomeWork['risks'] }) {
  const [residual, setResidual] = useState(false);
  if (risks.open === 0) {
    return (
      <p className="muted">
        Aucun risque ouvert dans vos projets. <Link href="/projects">Voir les projets</Link>
      </p>
    );
  }
  const caption = `${plural(risks.open, 'risque ouvert', 'risques ouverts')} sur ${plural(risks.projects, 'projet', 'projets')}, niveau ${residual ? 'résiduel' : 'initial'}`;
  return (
    <>
      <div className="segmented" role="group" aria-label="Niveau des risques">
        <button type="button" aria-pressed={!residual} onClick={() => setResidual(false)}>
          Initial
        </button>
        <button type="button" aria-pressed={residual} onClick={() => setResidual(true)}>
          Résiduel
        </button>
      </div>
      <RiskMatrix matrix={matrixOfCells(residual ? risks.residual : risks.initial)} caption={caption} />
      <p className="small">
        <Link href="/projects">Voir les projets</Link>
      </p>
    </>
  );
}

function CriticalFindings({ count, findings }: { count: number; findings: PriorityFinding[] }) {
  const sample = useIsSample();
  if (findings.length === 0) return <p className="muted">Aucune vulnérabilité critique ouverte.</p>;
  return (
    <>
      <ul className="home-findings">
        {findings.map((f) => {
          const label = (
            <>
              {f.cve_id && <span className="mono">{f.cve_id}</span>} {f.title}
            </>
          );
          const asset = typeof f.asset === 'string' ? f.asset : f.asset?.name;
          return (
            <li key={f.id}>
              <SeverityBadge severity={f.severity} />
              {sample ? (
                <span className="home-finding-title">{label}</span>
              ) : (
                <Link href={`/vulnerabilities/${f.id}`} className="home-finding-title">
                  {label}
                </Link>
              )}
              <span className="muted home-finding-meta">
                CVSS {f.cvss_score === null ? '—' : NUMBER.format(f.cvss_score)} · {asset ?? 'Sans actif'}{' '}
                <KevBadge kev={f.kev} />
              </span>
            </li>
          );
        })}
      </ul>
      <p className="small">
        <Link href={listHref({ severity: 'critical', is_resolved: 'false', ordering: '-cvss_score' })}>
          {count > findings.length
            ? `Voir les ${NUMBER.format(count)} vulnérabilités critiques ouvertes`
            : 'Voir la liste des vulnérabilités'}
        </Link>
      </p>
    </>
  );
}

function RecentNotices({ notices }: { notices: RecentNotification[] }) {
  const sample = useIsSample();
  if (notices.length === 0) return <p className="muted">Aucune notification.</p>;
  return (
    <>
      <ul className="home-notices">
        {notices.map((n) => (
          <li key={n.id} className={n.read ? undefined : 'unread'}>
            {!n.read && <span className="sr-only">Non lue : </span>}
            {n.link?.startsWith('/') && !sample ? <Link href={n.link}>{n.title}</Link> : <span>{n.title}</span>}
            <time className="muted" dateTime={n.created_at}>
              {formatDateTime(n.created_at)}
            </time>
          </li>
        ))}
      </ul>
      <p className="small">
        <Link href="/notifications">Toutes les notifications</Link>
      </p>
    </>
  );
}
