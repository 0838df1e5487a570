/** GET /api/system/logs/: the latest lines of the platform's log store worth a look, at or above a level. */
import { levelsFrom, LOG_LEVELS, type LogLevel } from '../domain/log-levels.ts';
import { FieldErrors } from '../domain/errors.ts';
import { FilterQuery } from './common.ts';
import { positiveInt, type RawQuery } from './query.ts';

export const DEFAULT_SYSTEM_LOG_LIMIT = 20;
export const MAX_SYSTEM_LOG_LIMIT = 100;
/** Without min_level, the lines an operator should see: warnings and worse. */
export const DEFAULT_SYSTEM_LOG_LEVEL: LogLevel = 'warning';

export const SystemLogsQuery = FilterQuery({
  limit: `Nombre de lignes, les plus récentes d’abord (défaut ${DEFAULT_SYSTEM_LOG_LIMIT}, au plus ${MAX_SYSTEM_LOG_LIMIT})`,
  min_level: `Ce niveau et les plus graves (${LOG_LEVELS.join(', ')} ; défaut ${DEFAULT_SYSTEM_LOG_LEVEL})`,
});

export const SYSTEM_LOG_MESSAGES = {
  limit: `Nombre de lignes invalide : un entier entre 1 et ${MAX_SYSTEM_LOG_LIMIT} est attendu.`,
  level: `Niveau invalide. Valeurs possibles : ${LOG_LEVELS.join(', ')}.`,
} as const;

/** The query read into a line count and the levels kept; a wrong value is a 400 with its French message. */
export function parseSystemLogsQuery(query: RawQuery): { limit: number; levels: LogLevel[] } {
  const errors = new FieldErrors();
  const limit = positiveInt(query.limit);
  if (limit === null || (limit !== undefined && limit > MAX_SYSTEM_LOG_LIMIT)) {
    errors.add('limit', SYSTEM_LOG_MESSAGES.limit);
  }
  const raw = query.min_level?.trim().toLowerCase();
  const level = raw ? (LOG_LEVELS as readonly string[]).find((l) => l === raw) : DEFAULT_SYSTEM_LOG_LEVEL;
  if (!level) errors.add('min_level', SYSTEM_LOG_MESSAGES.level);
  errors.throwIfAny();
  return { limit: limit ?? DEFAULT_SYSTEM_LOG_LIMIT, levels: levelsFrom(level as LogLevel) };
}
