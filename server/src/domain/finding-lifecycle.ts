import {
  canMove,
  FINDING_STATE_LABELS,
  isResolvedState,
  JUSTIFIED_STATES,
  MAX_ACCEPTANCE_DAYS,
  type FindingState,
} from '../../../contract/finding-states.ts';
import { ApiError } from './errors.ts';

// A finding's lifecycle (issue 21, contract/finding-states.ts): which moves are allowed, and the columns a move sets.

export const LIFECYCLE_MESSAGES = {
  refused: (from: FindingState, to: FindingState) =>
    `Changement d'état impossible : « ${FINDING_STATE_LABELS[from]} » ne peut pas passer à « ${FINDING_STATE_LABELS[to]} ».`,
  justification: (to: FindingState) => `Une justification est obligatoire pour « ${FINDING_STATE_LABELS[to]} ».`,
  approver: 'Seul un responsable ou un administrateur peut accepter un risque.',
  expiryRequired: "La date d'expiration de l'acceptation du risque est obligatoire.",
  expiryPast: "La date d'expiration de l'acceptation doit être postérieure à aujourd'hui.",
  expiryTooFar: `L'acceptation d'un risque ne peut pas dépasser ${MAX_ACCEPTANCE_DAYS} jours.`,
  expiryOnlyAccepted: "Une date d'expiration ne s'applique qu'à un risque accepté.",
} as const;

/** The columns that carry a finding's state. */
export interface StateColumns {
  state: FindingState;
  isResolved: boolean;
  resolvedAt: Date | null;
  resolvedBy: number | null;
  stateChangedAt: Date;
  stateReason: string | null;
  acceptedBy: number | null;
  acceptedUntil: string | null;
}

export interface MoveRequest {
  to: FindingState;
  /** Kept in the history; the justification of a false positive, an acceptance or an out-of-scope finding. */
  comment: string;
  /** Day (AAAA-MM-JJ) a risk acceptance lapses: required for `accepted`, refused otherwise. */
  acceptedUntil?: string | undefined;
  /** null: the platform (a re-scan, a lapsed acceptance). */
  userId: number | null;
  /** May the actor approve a risk acceptance (policies canAcceptRisk)? */
  mayAcceptRisk: boolean;
  /** Today, AAAA-MM-JJ (UTC). */
  today: string;
}

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

const addDays = (day: string, days: number): string => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

/**
 * The columns moving a finding from `current` to `request.to` sets, or undefined when it is there already (a replayed
 * request changes nothing). Refusals are French: a move the lifecycle does not allow (409), a missing justification
 * or expiry (400), an acceptance by someone who may not approve it (403).
 */
export function planMove(
  current: { state: FindingState; resolvedAt: Date | null; resolvedBy: number | null },
  request: MoveRequest,
  now = new Date(),
): StateColumns | undefined {
  const { to } = request;
  if (to !== 'accepted' && request.acceptedUntil)
    throw invalid('accepted_until', LIFECYCLE_MESSAGES.expiryOnlyAccepted);
  if (current.state === to) return undefined;
  if (!canMove(current.state, to))
    throw new ApiError(409, 'invalid_transition', LIFECYCLE_MESSAGES.refused(current.state, to));
  const comment = checkMoveRequest(request);
  const resolved = isResolvedState(to);
  const wasResolved = isResolvedState(current.state);
  return {
    state: to,
    isResolved: resolved,
    // The first resolution's date and author stay while it moves between resolved states (fixed → verified).
    resolvedAt: resolved ? (wasResolved ? current.resolvedAt : now) : null,
    resolvedBy: resolved ? (wasResolved ? current.resolvedBy : request.userId) : null,
    stateChangedAt: now,
    stateReason: JUSTIFIED_STATES.includes(to) ? comment : null,
    acceptedBy: to === 'accepted' ? request.userId : null,
    acceptedUntil: to === 'accepted' ? request.acceptedUntil! : null,
  };
}

/**
 * What a move to `request.to` needs whatever the finding's state: a justification, and for an acceptance an approver
 * and an expiry within bounds. Answers the trimmed comment; refusals as planMove's.
 */
export function checkMoveRequest(request: MoveRequest): string {
  const { to } = request;
  if (to !== 'accepted' && request.acceptedUntil)
    throw invalid('accepted_until', LIFECYCLE_MESSAGES.expiryOnlyAccepted);
  const comment = request.comment.trim();
  if (JUSTIFIED_STATES.includes(to) && !comment) throw invalid('comment', LIFECYCLE_MESSAGES.justification(to));
  if (to === 'accepted') {
    if (!request.mayAcceptRisk) throw new ApiError(403, 'permission_denied', LIFECYCLE_MESSAGES.approver);
    const until = request.acceptedUntil;
    if (!until) throw invalid('accepted_until', LIFECYCLE_MESSAGES.expiryRequired);
    if (until <= request.today) throw invalid('accepted_until', LIFECYCLE_MESSAGES.expiryPast);
    if (until > addDays(request.today, MAX_ACCEPTANCE_DAYS))
      throw invalid('accepted_until', LIFECYCLE_MESSAGES.expiryTooFar);
  }
  return comment;
}

/**
 * The state §7's `is_resolved` asks for: resolving an open finding claims it fixed (« corrigée », to verify);
 * reopening a resolved one confirms it. A finding already on that side stays as it is.
 */
export function stateForResolved(current: FindingState, resolved: boolean): FindingState {
  if (isResolvedState(current) === resolved) return current;
  return resolved ? 'fixed' : 'confirmed';
}
