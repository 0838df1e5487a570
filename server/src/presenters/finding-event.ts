import { FINDING_EVENT_KINDS } from '../db/schema.ts';
import type { FindingChangeRow, FindingEventRow } from '../repositories/finding-events.ts';
import { Choice, Nullable, Type } from '../schemas/common.ts';

/** One line of a finding's history (issue 21): a state move, an assignment, a due date or a comment. */
export const FindingEventSchema = Type.Object(
  {
    id: Type.Integer(),
    kind: Choice(FINDING_EVENT_KINDS),
    user_id: Nullable(Type.Integer()),
    /** null: the platform (a re-scan, a lapsed acceptance), or an account since deleted. */
    username: Nullable(Type.String()),
    from_value: Nullable(Type.String()),
    to_value: Nullable(Type.String()),
    comment: Type.String(),
    /** The scan whose reconciliation made the move, or null. */
    scan_id: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'FindingEvent' },
);

/** A finding a scan's reconciliation moved: reopened (to confirmed) or closed as fixed. */
export const ScanChangeSchema = Type.Object(
  {
    vulnerability_id: Type.Integer(),
    title: Type.String(),
    cve_id: Nullable(Type.String()),
    from_value: Nullable(Type.String()),
    to_value: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ScanChange' },
);

export function presentScanChange(c: FindingChangeRow) {
  return {
    vulnerability_id: c.vulnerabilityId,
    title: c.title,
    cve_id: c.cveId,
    from_value: c.fromValue,
    to_value: c.toValue,
    created_at: c.createdAt.toISOString(),
  };
}

/** A person a finding may be assigned to. */
export const AssigneeSchema = Type.Object(
  { id: Type.Integer(), username: Type.String(), name: Type.String() },
  { title: 'Assignee' },
);

export function presentFindingEvent(e: FindingEventRow) {
  return {
    id: e.id,
    kind: e.kind,
    user_id: e.userId,
    username: e.username,
    from_value: e.fromValue,
    to_value: e.toValue,
    comment: e.comment,
    scan_id: e.scanId,
    created_at: e.createdAt.toISOString(),
  };
}
