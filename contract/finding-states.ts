/**
 * A finding's lifecycle (issue 21): its states as the API spells them, their French labels, which ones count as
 * resolved (the §7 `is_resolved` flag follows the state), and the moves the server accepts.
 */
export const FINDING_STATES = [
  'new',
  'confirmed',
  'in_progress',
  'fixed',
  'verified',
  'false_positive',
  'accepted',
  'out_of_scope',
] as const;
export type FindingState = (typeof FINDING_STATES)[number];

export const FINDING_STATE_LABELS: Record<FindingState, string> = {
  new: 'Nouvelle',
  confirmed: 'Confirmée',
  in_progress: 'En cours de correction',
  fixed: 'Corrigée (à vérifier)',
  verified: 'Vérifiée (clôturée)',
  false_positive: 'Faux positif',
  accepted: 'Risque accepté',
  out_of_scope: 'Hors périmètre',
};

/**
 * The states in which a finding is resolved (`is_resolved: true`): no longer counted as open. « Corrigée » is among
 * them (the fix is claimed, a re-scan or a person verifies it); the database checks the flag against the state.
 */
export const RESOLVED_STATES: readonly FindingState[] = [
  'fixed',
  'verified',
  'false_positive',
  'accepted',
  'out_of_scope',
];

export const isResolvedState = (state: FindingState): boolean => RESOLVED_STATES.includes(state);

/** Where a finding may go from each state. Every resolved state reopens to « confirmée ». */
export const FINDING_TRANSITIONS: Readonly<Record<FindingState, readonly FindingState[]>> = {
  new: ['confirmed', 'in_progress', 'fixed', 'false_positive', 'accepted', 'out_of_scope'],
  confirmed: ['in_progress', 'fixed', 'false_positive', 'accepted', 'out_of_scope'],
  in_progress: ['confirmed', 'fixed', 'false_positive', 'accepted', 'out_of_scope'],
  fixed: ['verified', 'confirmed'],
  verified: ['confirmed'],
  false_positive: ['confirmed'],
  accepted: ['confirmed'],
  out_of_scope: ['confirmed'],
};

/** The states whose move needs a written reason (a comment kept in the finding's history). */
export const JUSTIFIED_STATES: readonly FindingState[] = ['false_positive', 'accepted', 'out_of_scope'];

/** At most this long between accepting a risk and its review (the acceptance's expiry reopens the finding). */
export const MAX_ACCEPTANCE_DAYS = 366;

export const isFindingState = (value: string): value is FindingState =>
  (FINDING_STATES as readonly string[]).includes(value);

/** A state as a history line or a scan's changes spell it (any text): its label, else the text as is, else « — ». */
export const findingStateLabel = (value: string | null): string =>
  value && isFindingState(value) ? FINDING_STATE_LABELS[value] : (value ?? '—');

/** May a finding in `from` go to `to`? Staying where it is never counts as a move. */
export const canMove = (from: FindingState, to: FindingState): boolean => FINDING_TRANSITIONS[from].includes(to);
