/**
 * Risk scoring rules of docs/api-projects.md ("Risks", "Remediation plans and corrective actions", "Tasks"): pure
 * functions, so the routes, the repository and the tests share one reading of the contract.
 */
import type { RiskLevel } from '../../../contract/projects.ts';
import type { ProjectTaskStatus, RiskTreatment } from './project-vocabulary.ts';

// The levels and the score → level rule are the client's too (contract/projects.ts).
export { RISK_LEVELS, riskLevelOf as riskLevel, type RiskLevel } from '../../../contract/projects.ts';

/** Inclusive score bounds of each level on the 4 × 4 matrix (the gaps 5, 7, 10, 11 are not products of 1–4). */
export const LEVEL_SCORES: Record<RiskLevel, { min: number; max: number }> = {
  low: { min: 1, max: 3 },
  medium: { min: 4, max: 6 },
  high: { min: 8, max: 9 },
  critical: { min: 12, max: 16 },
};

export interface ScoredRisk {
  likelihood: number;
  impact: number;
  treatment: RiskTreatment;
}

export interface PlanTargets {
  targetLikelihood: number;
  targetImpact: number;
}

/** `from` moved toward `to` by progress/100, rounded half up; integer arithmetic so 50 % of 4 → 2 is exactly 3. */
function interpolate(from: number, to: number, progress: number): number {
  const hundredths = from * 100 + (to - from) * progress;
  return Math.floor((2 * hundredths + 100) / 200);
}

/**
 * Residual scores: the initial ones without a plan or when the risk is accepted; otherwise moved from the initial
 * scores toward the plan's targets in proportion to its progress (0–100), the targets themselves at 100.
 */
export function residualScores(
  risk: ScoredRisk,
  plan: PlanTargets | null,
  progress: number,
): { likelihood: number; impact: number } {
  if (plan === null || risk.treatment === 'ACCEPT') return { likelihood: risk.likelihood, impact: risk.impact };
  const p = Math.min(100, Math.max(0, progress));
  return {
    likelihood: interpolate(risk.likelihood, plan.targetLikelihood, p),
    impact: interpolate(risk.impact, plan.targetImpact, p),
  };
}

/** The mean of `count` integer progresses summing to `sum`, rounded half up (exactly: no float division); 0 if none. */
export function meanProgress(sum: number, count: number): number {
  if (count <= 0) return 0;
  return Math.floor((2 * sum + count) / (2 * count));
}

/** A plan's progress: the mean of its actions' progress, rounded half up; 0 without actions. */
export function planProgress(progresses: readonly number[]): number {
  return meanProgress(
    progresses.reduce((a, b) => a + b, 0),
    progresses.length,
  );
}

export const PROGRESS_MESSAGE = 'La progression doit être un entier entre 0 et 100.';

/**
 * A progress as sent in JSON: an integer 0–100, nothing else (no numeric strings, fractions, booleans or null).
 * Returns undefined when the value is not acceptable; the caller reports PROGRESS_MESSAGE.
 */
export function parseProgress(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100) return undefined;
  return value === 0 ? 0 : value; // -0 becomes 0
}

export type ActionStatus = 'TODO' | 'IN_PROGRESS' | 'DONE';

/** A corrective action's status is derived: TODO at 0, DONE at 100, IN_PROGRESS between. */
export function actionStatus(progress: number): ActionStatus {
  return progress >= 100 ? 'DONE' : progress <= 0 ? 'TODO' : 'IN_PROGRESS';
}

/**
 * A task's status once its progress is `progress`: 100 is DONE; below 100 a DONE task is back IN_PROGRESS; a TODO
 * task that has started is IN_PROGRESS; otherwise (IN_PROGRESS at 0, BLOCKED) the status stays.
 */
export function taskStatusFor(status: ProjectTaskStatus, progress: number): ProjectTaskStatus {
  if (progress >= 100) return 'DONE';
  if (status === 'DONE') return 'IN_PROGRESS';
  if (status === 'TODO' && progress > 0) return 'IN_PROGRESS';
  return status;
}

/** Reaching 100 stamps completion (kept if already complete); leaving 100 clears it. */
export function completedAt(progress: number, previous: Date | null, now: Date): Date | null {
  if (progress < 100) return null;
  return previous ?? now;
}

/** Today's date in UTC, as `YYYY-MM-DD` (the form due dates are stored and compared in). */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Due before today (UTC) and not finished. */
export function isOverdue(dueDate: string | null, progress: number, today: string): boolean {
  return dueDate !== null && dueDate < today && progress < 100;
}
