// The log store's levels: pure words shared by the log sink, its repository and the routes.

/** The levels of the log store, lowest first (the system setting log_level uses the same words). */
export const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3, critical: 4 };

/** The levels at or above `level`. */
export function levelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.filter((l) => LEVEL_RANK[l] >= LEVEL_RANK[level]);
}

/** pino's numeric levels (trace 10 … fatal 60) in the store's words. */
export function levelOfPino(n: number): LogLevel {
  if (n >= 60) return 'critical';
  if (n >= 50) return 'error';
  if (n >= 40) return 'warning';
  if (n >= 30) return 'info';
  return 'debug';
}
