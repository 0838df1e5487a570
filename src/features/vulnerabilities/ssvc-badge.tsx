import { SSVC_LABELS, type SsvcDecision } from '../../../contract/ssvc.ts';

/** CISA's names of the decisions, short enough for a column; the French label goes in the title. */
export const SSVC_SHORT: Record<SsvcDecision, string> = {
  track: 'Track',
  track_star: 'Track*',
  attend: 'Attend',
  act: 'Act',
};

/** A finding's SSVC decision (issue 21), loud when it says act; a dash when it has none (resolved). */
export function SsvcBadge({ decision }: { decision: SsvcDecision | null | undefined }) {
  if (!decision || !(decision in SSVC_SHORT)) return <span className="muted">—</span>;
  return (
    <span className={`ssvc-badge ssvc-badge-${decision}`} title={SSVC_LABELS[decision]}>
      <span aria-hidden="true">{SSVC_SHORT[decision]}</span>
      <span className="sr-only">{SSVC_LABELS[decision]}</span>
    </span>
  );
}
