import { FINDING_SEVERITIES, FINDING_STATES } from '../db/schema.ts';
import type { AssetOverview } from '../repositories/asset-overview.ts';
import type { FindingEventRow } from '../repositories/finding-events.ts';
import { Nullable, Type } from '../schemas/common.ts';
import { FindingEventSchema, presentFindingEvent } from './finding-event.ts';

const counts = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])));
const DateTime = Type.String({ format: 'date-time' });

/** An asset's page beside the asset itself (issue 21). */
export const AssetOverviewSchema = Type.Object(
  {
    findings_by_state: counts(FINDING_STATES),
    open_by_severity: counts(FINDING_SEVERITIES),
    scans: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        status: Type.String(),
        scanner: Type.String(),
        created_at: DateTime,
        completed_at: Nullable(DateTime),
      }),
    ),
    projects: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), status: Type.String() })),
    history: Type.Array(Type.Object({ ...FindingEventSchema.properties, title: Type.String() })),
  },
  { title: 'AssetOverview' },
);

export function presentAssetOverview(o: AssetOverview & { history: (FindingEventRow & { title: string })[] }) {
  return {
    findings_by_state: o.byState,
    open_by_severity: o.openBySeverity,
    scans: o.scans.map((s) => ({
      id: s.id,
      name: s.name,
      status: s.status,
      scanner: s.scanner,
      created_at: s.createdAt.toISOString(),
      completed_at: s.completedAt?.toISOString() ?? null,
    })),
    projects: o.projects,
    history: o.history.map((e) => ({ ...presentFindingEvent(e), title: e.title })),
  };
}
