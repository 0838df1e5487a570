import { isSeverity, SEVERITY_LABELS } from '../../contract/severity.ts';
import './charts/charts.css';

/** A severity's French name on its colour; an unknown value is shown as it is. */
export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  const v = severity?.toLowerCase();
  const known = v !== undefined && isSeverity(v);
  return (
    <span className={`sev-badge ${known ? `sev-${v}` : ''}`}>{known ? SEVERITY_LABELS[v] : (severity ?? '—')}</span>
  );
}

/** CISA Known Exploited Vulnerabilities. */
export function KevBadge({ kev }: { kev: boolean | null | undefined }) {
  if (!kev) return null;
  return (
    <abbr className="kev-badge" title="Vulnérabilité activement exploitée (catalogue KEV de la CISA)">
      KEV
    </abbr>
  );
}
