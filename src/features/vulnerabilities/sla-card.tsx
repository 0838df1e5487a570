import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { useResource } from '../../lib/use-resource.ts';
import { fetchSlaReport } from './api/vulnerabilities.ts';
import { NUMBER } from './format.ts';

const PERCENT = new Intl.NumberFormat('fr-FR', { style: 'percent', maximumFractionDigits: 0 });

/**
 * SLA compliance (issue 21): open findings past their due date or due within a week, and the share of findings
 * resolved by their due date over the last 90 days. Hidden where the backend has no such report.
 */
export function SlaCard({ tenant }: { tenant: string }) {
  const report = useResource(() => fetchSlaReport(), [tenant]);
  const { state } = report;
  // A backend without the report (or a sample in its place) shows nothing rather than empty figures.
  if (state.status !== 'ready' || typeof state.data?.overdue !== 'number') return null;
  const r = state.data;
  const rate = r.resolved_in_window > 0 ? r.resolved_on_time / r.resolved_in_window : null;
  return (
    <section className="card sla-card" aria-labelledby="sla-title">
      <h2 id="sla-title">Délais de traitement (SLA)</h2>
      <DataOriginNote origin={state.origin} />
      <dl className="facts">
        <dt>En retard</dt>
        <dd className={r.overdue > 0 ? 'sla-late' : undefined}>{NUMBER.format(r.overdue)}</dd>
        <dt>À échéance sous 7 jours</dt>
        <dd>{NUMBER.format(r.due_soon)}</dd>
        <dt>Corrigées dans les délais ({r.window_days} derniers jours)</dt>
        <dd>
          {rate === null
            ? 'Aucune vulnérabilité à échéance résolue sur la période'
            : `${PERCENT.format(rate)} (${NUMBER.format(r.resolved_on_time)} sur ${NUMBER.format(r.resolved_in_window)})`}
        </dd>
      </dl>
    </section>
  );
}
