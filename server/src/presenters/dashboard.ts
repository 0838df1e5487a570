import { FINDING_SEVERITIES } from '../../../contract/severity.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import { isOverdue } from '../domain/risk-scoring.ts';
import type { WorkOverviewRepository } from '../repositories/project-work.ts';
import { WALL_EVENT_KINDS, type WallEvent } from '../repositories/notifications.ts';
import { NOTIFICATION_LEVELS } from '../../../contract/levels.ts';

/** A wall event's kind: the product's events, and `message` for a manager's message to everyone. */
const WALL_EVENT_KINDS_OUT = [...WALL_EVENT_KINDS, 'message'] as const;
import { AssetRefSchema, SeverityCountsSchema } from './vulnerability.ts';

// The dashboards' figures are shaped by repositories/dashboard.ts; these are their wire schemas.

const DateTime = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });

/** spec §3 vulnerability dashboard summary (GET /api/vulnerabilities/summary/). */
export const VulnerabilitySummarySchema = Type.Object(
  {
    total_vulnerabilities: Count,
    severity_distribution: SeverityCountsSchema,
    recently_added: Type.Array(
      Type.Object({
        id: Type.Integer(),
        cve_id: Nullable(Type.String()),
        title: Type.String(),
        severity: Choice(FINDING_SEVERITIES),
        asset: Nullable(AssetRefSchema),
        created_at: DateTime,
      }),
    ),
    top_affected_assets: Type.Array(
      Type.Object({ id: Type.Integer(), name: Type.String(), count: Count, critical: Count }),
    ),
    top_cwe_categories: Type.Array(Type.Object({ cwe_id: Type.String(), name: Type.String(), count: Count })),
    vulnerability_trends: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), count: Count })),
    kev_count: Count,
    /** Open findings whose SSVC decision is Act (« À traiter maintenant », docs/ssvc.md). */
    ssvc_act_count: Count,
    open_count: Count,
    resolved_count: Count,
    generated_at: DateTime,
  },
  { title: 'VulnerabilitySummary' },
);
export type VulnerabilitySummary = Static<typeof VulnerabilitySummarySchema>;

/** The home page's figures (GET /api/dashboard/summary/). */
export const HomeSummarySchema = Type.Object(
  {
    vulnerabilities: Type.Object({
      total: Count,
      open: Count,
      critical: Count,
      high: Count,
      kev: Count,
      resolved: Count,
    }),
    assets: Type.Object({ total: Count, critical: Count }),
    threats: Type.Object({ total: Count, active: Count }),
    scans: Type.Object({ total: Count, running: Count, last_completed_at: Nullable(DateTime) }),
    tasks: Type.Object({ running: Count, failed_24h: Count }),
    last_cve_update: Nullable(DateTime),
    generated_at: DateTime,
  },
  { title: 'HomeSummary' },
);
export type HomeSummary = Static<typeof HomeSummarySchema>;

const Cell = Type.Object({ likelihood: Type.Integer(), impact: Type.Integer(), count: Count });

/** The signed-in user's own part of the home page (GET /api/dashboard/my-work/). */
export const HomeWorkSchema = Type.Object(
  {
    work: Type.Object({
      /** Unfinished tasks and corrective actions assigned to the user, in the projects they can read. */
      total: Count,
      overdue: Count,
      /** The soonest due first, at most MY_WORK_LIMIT. */
      items: Type.Array(
        Type.Object({
          kind: Choice(['task', 'action'] as const),
          id: Type.Integer(),
          title: Type.String(),
          project: Type.Object({ id: Type.Integer(), name: Type.String() }),
          due_date: Nullable(Type.String({ format: 'date' })),
          progress: Count,
          status: Nullable(Type.String()),
          priority: Nullable(Type.String()),
          overdue: Type.Boolean(),
        }),
      ),
    }),
    /** Risks not closed in the projects the user can read, per cell of the 4 × 4 matrix. */
    risks: Type.Object({
      open: Count,
      projects: Count,
      initial: Type.Array(Cell),
      residual: Type.Array(Cell),
    }),
    generated_at: DateTime,
  },
  { title: 'HomeWork' },
);
export type HomeWork = Static<typeof HomeWorkSchema>;

const RisksSchema = HomeWorkSchema.properties.risks;

/** A wall's risk heat map (GET /api/dashboard/risks/): a person's readable projects, a paired screen's tenant. */
export const RiskMapSchema = Type.Object({ risks: RisksSchema, generated_at: DateTime }, { title: 'RiskMap' });

/** A wall's last events (GET /api/dashboard/events/). */
export const WallEventsSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        id: Type.Integer(),
        kind: Choice(WALL_EVENT_KINDS_OUT),
        level: Choice(NOTIFICATION_LEVELS),
        title: Type.String(),
        link: Nullable(Type.String()),
        created_at: DateTime,
      }),
    ),
    generated_at: DateTime,
  },
  { title: 'WallEvents' },
);

type HeatMap = Awaited<ReturnType<WorkOverviewRepository['riskHeatMap']>>;

function presentRisks(risks: HeatMap): HomeWork['risks'] {
  return {
    open: risks.initial.reduce((n, c) => n + c.count, 0),
    projects: risks.projects,
    initial: risks.initial,
    residual: risks.residual,
  };
}

export function presentRiskMap(risks: HeatMap): Static<typeof RiskMapSchema> {
  return { risks: presentRisks(risks), generated_at: new Date().toISOString() };
}

export function presentWallEvents(events: readonly WallEvent[]): Static<typeof WallEventsSchema> {
  return {
    results: events.map((e) => ({
      id: e.id,
      kind: e.kind === 'manual' ? 'message' : e.kind,
      level: e.level,
      title: e.title,
      link: e.link,
      created_at: e.createdAt.toISOString(),
    })),
    generated_at: new Date().toISOString(),
  };
}

export function presentHomeWork(
  work: Awaited<ReturnType<WorkOverviewRepository['openWorkOf']>>,
  risks: HeatMap,
  today: string,
): HomeWork {
  return {
    work: {
      total: work.total,
      overdue: work.overdue,
      items: work.rows.map((w) => ({
        kind: w.kind,
        id: w.id,
        title: w.title,
        project: { id: w.projectId, name: w.projectName },
        due_date: w.dueDate,
        progress: w.progress,
        status: w.status,
        priority: w.priority,
        overdue: isOverdue(w.dueDate, w.progress, today),
      })),
    },
    risks: presentRisks(risks),
    generated_at: new Date().toISOString(),
  };
}
