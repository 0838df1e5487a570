import { isSeverity, severityLabel } from './format.ts';

export function SeverityBadge({ severity }: { severity: string | null | undefined }) {
  const v = severity?.toLowerCase();
  return <span className={`sev-badge ${isSeverity(v) ? `sev-${v}` : ''}`}>{severityLabel(severity)}</span>;
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
