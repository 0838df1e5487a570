import { Link, useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope, useIsSample } from '../../components/sample-scope.tsx';
import { HorizontalBars, SeverityDonut, TrendLine } from '../../components/charts/index.tsx';
import { FINDING_SEVERITIES, FINDING_SEVERITY_LABELS } from '../../../contract/severity.ts';
import { fetchSummary } from './api/vulnerabilities.ts';
import type { VulnerabilitySummary } from './api/types.ts';
import { SeverityBadge } from '../../components/severity-badges.tsx';
import { formatDateTime, NUMBER, plural } from './format.ts';
import { tenantKey } from './permissions.ts';
import { RetryError } from '../../components/list-state.tsx';
import { useResource } from '../../lib/use-resource.ts';
import { CVE_SEARCH_LINK, ScreenHead } from './screen-head.tsx';
import { SlaCard } from './sla-card.tsx';
import { TriageSettingsCard } from './triage-settings.tsx';
import { may } from '../../lib/auth/can-write.ts';
import './vulnerabilities.css';

export const PERIODS = [7, 30, 90] as const;
const DEFAULT_PERIOD = 30;

export function periodOf(search: string): number {
  const days = Number(new URLSearchParams(search).get('days'));
  return (PERIODS as readonly number[]).includes(days) ? days : DEFAULT_PERIOD;
}

const LIST = '/vulnerabilities/list';

function listHref(params: Record<string, string>): string {
  return `${LIST}?${new URLSearchParams(params).toString()}`;
}

function assetName(asset: VulnerabilitySummary['recently_added'][number]['asset']): string | null {
  if (!asset) return null;
  return typeof asset === 'string' ? asset : asset.name;
}

/** spec §3 vulnerability dashboard summary, for the chosen period (7, 30 or 90 days, in the URL). */
export default function VulnerabilityDashboardPage() {
  useSignals();
  const search = useSearch();
  const days = periodOf(search);
  const summary = useResource(() => fetchSummary(days), [days, tenantKey()]);
  const { state } = summary;

  return (
    <section className="page page-wide vuln-page" aria-busy={state.status === 'loading'}>
      <ScreenHead title="Vulnérabilités" links={[[LIST, 'Toutes les vulnérabilités'], CVE_SEARCH_LINK]} />

      <nav className="segmented" aria-label="Période">
        {PERIODS.map((p) => (
          <Link key={p} href={`/vulnerabilities?days=${p}`} aria-current={p === days ? 'page' : undefined}>
            {p} jours
          </Link>
        ))}
      </nav>

      {state.status === 'loading' && <p role="status">Chargement du tableau de bord…</p>}
      {state.status === 'error' && (
        <RetryError className="vuln-error" message={state.message} onRetry={() => void summary.refresh()} />
      )}
      {state.status === 'ready' && (
        <>
          <DataOriginNote origin={state.origin} />
          <SampleScope origin={state.origin}>
            <SummaryView summary={state.data} days={days} />
          </SampleScope>
          <SlaCard tenant={tenantKey()} />
          {may('administer_tenant') && <TriageSettingsCard tenant={tenantKey()} />}
        </>
      )}
    </section>
  );
}

function SummaryView({ summary, days }: { summary: VulnerabilitySummary; days: number }) {
  // Sample findings are not the organisation's: no link may lead into one (it would not exist).
  const sample = useIsSample();
  const dist = summary.severity_distribution;
  const total = summary.total_vulnerabilities ?? FINDING_SEVERITIES.reduce((a, s) => a + dist[s], 0);
  const recent = summary.recently_added;
  const assets = summary.top_affected_assets.map((a) => ({
    label: a.name ?? a.asset ?? '—',
    value: a.count,
  }));
  const cwes = summary.top_cwe_categories.map((c) => ({
    label: c.name ? `${c.cwe_id} — ${c.name}` : c.cwe_id,
    value: c.count,
    // MITRE's names are English.
    ...(c.name ? { lang: 'en' } : {}),
  }));
  const trends = summary.vulnerability_trends;

  if (total === 0 && recent.length === 0 && (summary.resolved_count ?? 0) === 0) {
    return (
      <p className="empty">
        Aucune vulnérabilité enregistrée pour le moment. Importez un rapport de scan pour commencer.{' '}
        <Link href="/scans">Aller aux scans</Link>
      </p>
    );
  }

  return (
    <>
      <ul className="stat-tiles" aria-label="Chiffres clés">
        {summary.ssvc_act_count !== undefined && (
          <li className="tile-act">
            <Link href={listHref({ ssvc: 'act' })}>
              <Figure testId="stat-act">{NUMBER.format(summary.ssvc_act_count)}</Figure>
              <span>à traiter maintenant (SSVC Act)</span>
            </Link>
          </li>
        )}
        <li>
          <Link href={listHref({ is_resolved: 'false' })}>
            <Figure testId="stat-total">{NUMBER.format(total)}</Figure>
            <span>{total > 1 ? 'vulnérabilités ouvertes' : 'vulnérabilité ouverte'}</span>
          </Link>
        </li>
        <li className="tile-critical">
          <Link href={listHref({ severity: 'critical', is_resolved: 'false' })}>
            <Figure testId="stat-critical">{NUMBER.format(dist.critical)}</Figure>
            <span>{dist.critical > 1 ? 'critiques' : 'critique'}</span>
          </Link>
        </li>
        {summary.kev_count !== undefined && (
          <li className="tile-kev">
            <Link href={listHref({ kev: 'true', is_resolved: 'false' })}>
              <Figure testId="stat-kev">{NUMBER.format(summary.kev_count)}</Figure>
              <span>activement exploitées (KEV)</span>
            </Link>
          </li>
        )}
        {summary.open_count !== undefined && (
          <li>
            <Link href={listHref({ is_resolved: 'false' })}>
              <Figure testId="stat-open">{NUMBER.format(summary.open_count)}</Figure>
              <span>{summary.open_count > 1 ? 'ouvertes' : 'ouverte'}</span>
            </Link>
          </li>
        )}
        {summary.resolved_count !== undefined && (
          <li>
            <Link href={listHref({ is_resolved: 'true' })}>
              <Figure testId="stat-resolved">{NUMBER.format(summary.resolved_count)}</Figure>
              <span>{summary.resolved_count > 1 ? 'résolues' : 'résolue'}</span>
            </Link>
          </li>
        )}
      </ul>

      <div className="dashboard-grid vuln-grid">
        <section className="card" aria-labelledby="sev-title">
          <h2 id="sev-title">Par gravité</h2>
          <SeverityDonut distribution={dist} />
          <ul className="sev-links">
            {FINDING_SEVERITIES.map((s) => (
              <li key={s}>
                <Link href={listHref({ severity: s, is_resolved: 'false' })}>
                  <span className={`sev-dot sev-${s}`} aria-hidden="true" />
                  {FINDING_SEVERITY_LABELS[s]}
                  <strong>{NUMBER.format(dist[s])}</strong>
                </Link>
              </li>
            ))}
          </ul>
        </section>

        <section className="card span-2" aria-labelledby="trend-title">
          <h2 id="trend-title">Tendance sur {days} jours</h2>
          {trends.length === 0 ? (
            <p className="muted">Aucune donnée de tendance.</p>
          ) : (
            <TrendLine points={trends} label="Nouvelles vulnérabilités par jour" />
          )}
        </section>

        <section className="card span-2" aria-labelledby="recent-title">
          <h2 id="recent-title">Ajoutées récemment</h2>
          {recent.length === 0 ? (
            <p className="muted">Aucune vulnérabilité récente.</p>
          ) : (
            <ul className="recent-list">
              {recent.map((v) => (
                <li key={v.id}>
                  <SeverityBadge severity={v.severity} />
                  {sample ? (
                    <span className="recent-title">
                      {v.cve_id ? <span className="mono">{v.cve_id}</span> : null} {v.title}
                    </span>
                  ) : (
                    <Link href={`/vulnerabilities/${encodeURIComponent(String(v.id))}`} className="recent-title">
                      {v.cve_id ? <span className="mono">{v.cve_id}</span> : null} {v.title}
                    </Link>
                  )}
                  <span className="muted">
                    {assetName(v.asset) ?? 'Sans actif'} ·{' '}
                    <time dateTime={v.created_at}>{formatDateTime(v.created_at)}</time>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>

        <section className="card" aria-labelledby="assets-title">
          <h2 id="assets-title">Actifs les plus touchés</h2>
          {assets.length === 0 ? (
            <p className="muted">Aucun actif touché.</p>
          ) : (
            <HorizontalBars items={assets} label="Vulnérabilités ouvertes par actif" />
          )}
        </section>

        <section className="card span-2" aria-labelledby="cwe-title">
          <h2 id="cwe-title">Faiblesses (CWE) les plus fréquentes</h2>
          {cwes.length === 0 ? (
            <p className="muted">Aucune faiblesse référencée.</p>
          ) : (
            <HorizontalBars items={cwes} label="Vulnérabilités par CWE" />
          )}
        </section>
      </div>
      {summary.generated_at && (
        <p className="muted small">
          Calculé le <time dateTime={summary.generated_at}>{formatDateTime(summary.generated_at)}</time> ·{' '}
          {plural(total, 'vulnérabilité ouverte', 'vulnérabilités ouvertes')}
        </p>
      )}
    </>
  );
}
