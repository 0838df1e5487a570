/**
 * A finding's resolution: resolving records when and by whom, reopening clears both. Resolving a resolved finding
 * (or reopening an open one) changes nothing, so the first resolution's date and author stay.
 */
export interface Resolution {
  isResolved: boolean;
  resolvedAt: Date | null;
  resolvedBy: number | null;
}

/** The columns that take a finding from `wasResolved` to `resolved`; undefined when nothing changes. */
export function resolution(wasResolved: boolean, resolved: boolean, userId: number): Resolution | undefined {
  if (resolved === wasResolved) return undefined;
  return resolved
    ? { isResolved: true, resolvedAt: new Date(), resolvedBy: userId }
    : { isResolved: false, resolvedAt: null, resolvedBy: null };
}
