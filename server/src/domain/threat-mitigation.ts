/**
 * A threat's status and is_mitigated kept consistent (docs/api-vulnerabilities.md § Threats): MITIGATED means
 * mitigated (with when and by whom); going back to ACTIVE or INVESTIGATING, or is_mitigated false, clears it;
 * CLOSED leaves the mitigation as it was.
 */
import type { ThreatStatus } from '../../../contract/threats.ts';

/** The columns of a threat that hold its mitigation. */
export interface Mitigation {
  status: ThreatStatus;
  isMitigated: boolean;
  mitigatedAt: Date | null;
  mitigatedBy: number | null;
}

/** What a write asks: a status and/or is_mitigated, either left out. */
export interface MitigationAsked {
  status?: ThreatStatus | undefined;
  isMitigated?: boolean | undefined;
}

/** A mitigated threat has the status MITIGATED or CLOSED: anything else asked together is a contradiction. */
export function contradicts({ status, isMitigated }: MitigationAsked): boolean {
  const mitigatedState = status === 'MITIGATED' || status === 'CLOSED' || status === undefined;
  return (status === 'MITIGATED' && isMitigated === false) || (isMitigated === true && !mitigatedState);
}

/**
 * The mitigation after a write of `asked` on `current` (undefined for a new threat) by `userId`. A full update
 * (PUT) without a status starts again from ACTIVE; a partial one keeps the current status.
 */
export function mitigation(
  asked: MitigationAsked,
  current: Mitigation | undefined,
  userId: number,
  fullUpdate: boolean,
): Mitigation {
  const explicit = asked.status;
  let status: ThreatStatus = explicit ?? (!fullUpdate && current ? current.status : 'ACTIVE');
  let mitigated: boolean;
  if (explicit === 'MITIGATED' || asked.isMitigated === true) {
    mitigated = true;
    if (explicit === undefined) status = 'MITIGATED';
  } else if (asked.isMitigated === false) {
    mitigated = false;
    if (status === 'MITIGATED') status = 'ACTIVE';
  } else if (status === 'ACTIVE' || status === 'INVESTIGATING') {
    mitigated = false;
  } else {
    mitigated = status === 'MITIGATED' || (current?.isMitigated ?? false);
  }
  if (!mitigated) return { status, isMitigated: false, mitigatedAt: null, mitigatedBy: null };
  return {
    status,
    isMitigated: true,
    mitigatedAt: current?.isMitigated ? current.mitigatedAt : new Date(),
    mitigatedBy: current?.isMitigated ? current.mitigatedBy : userId,
  };
}
