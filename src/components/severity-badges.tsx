import { findingSeverityLabel, isFindingSeverity } from '../../contract/severity.ts';
import './charts/charts.css';

/**
 * A finding's or a CVE's severity: its French name on its colour, « Non évaluée » in its own dashed grey (never
 * Info's colour); an unknown value is shown as it is.
 */
export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  const v = severity?.toLowerCase();
  const known = v !== undefined && isFindingSeverity(v);
  return <span className={`sev-badge ${known ? `sev-${v}` : ''}`}>{findingSeverityLabel(severity)}</span>;
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
