import { FINDING_EVENT_KINDS } from '../db/schema.ts';
import type { FindingEventRow } from '../repositories/finding-events.ts';
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
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'FindingEvent' },
);

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
    created_at: e.createdAt.toISOString(),
  };
}
