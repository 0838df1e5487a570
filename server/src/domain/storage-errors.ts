// Failures of the server's own storage (its disk, its database) told apart from the client's mistakes and from bugs:
// they answer 503 with a French message, and the text stored in an error field (a failed backup, a task's
// meta.error) says what happened in French without the SQL or the paths, which go to the server's log.

/**
 * A disk or database failure: the server cannot read or keep data for now. `busy`: every database connection stayed
 * taken for the whole wait (a crowd of requests), which passes in a moment. `slow`: a statement ran past its
 * request class's timeout (config.ts StatementTimeouts) and was cancelled.
 */
export interface StorageFailure {
  kind: 'disk' | 'database' | 'busy' | 'slow';
  /** The system error code (ENOSPC…) or SQLSTATE (53100…), when known. */
  code: string | undefined;
  /** French, for the answer's detail and the error fields. */
  message: string;
}

const DISK_REASONS: Record<string, string> = {
  ENOSPC: 'espace disque insuffisant',
  EDQUOT: 'quota disque dépassé',
  EROFS: 'disque en lecture seule',
  EACCES: 'accès refusé au dossier de données',
  EPERM: 'accès refusé au dossier de données',
  EIO: 'erreur d’entrée-sortie du disque',
  EMFILE: 'trop de fichiers ouverts',
  ENFILE: 'trop de fichiers ouverts',
};

/**
 * SQLSTATE classes that say the database cannot work for now (connection, resources, operator intervention,
 * system and internal errors), as opposed to a refused statement, which is a bug of ours.
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|58|XX)/;
/** A statement sent to a session stuck in a failed transaction: the database's state, not the statement's fault. */
const IN_FAILED_TRANSACTION = '25P02';

const SQL_REASONS: Record<string, string> = {
  '53100': 'espace disque insuffisant',
  '53200': 'mémoire insuffisante',
  '53300': 'trop de connexions',
  '58030': 'erreur d’entrée-sortie du disque',
};

export const STORAGE_MESSAGES = {
  disk: (reason: string) => `Stockage du serveur indisponible (${reason}) : réessayez plus tard.`,
  database: 'Base de données indisponible : réessayez dans un instant.',
  busy: 'Serveur surchargé : réessayez dans un instant.',
  slow: 'Requête trop longue, interrompue par le serveur : réessayez dans un instant ou affinez les filtres.',
  databaseBecause: (reason: string) => `Base de données indisponible (${reason}) : réessayez plus tard.`,
  databaseError: 'Erreur de la base de données (le détail est dans le journal du serveur).',
  fileError: (code: string) => `Erreur d’accès aux fichiers du serveur (${code}).`,
} as const;

interface ErrorFields {
  code?: unknown;
  syscall?: unknown;
  severity?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** The error and its causes (Drizzle wraps the driver's error in `cause`). */
function* chain(err: unknown): Generator<ErrorFields> {
  let current = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const e: ErrorFields = current;
    yield e;
    current = e.cause;
  }
}

/** PostgreSQL's (and PGlite's) error: a five-character SQLSTATE and a severity. */
function sqlState(e: ErrorFields): string | undefined {
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string'
    ? e.code
    : undefined;
}

/** A system call's error (fs, net): an E… code and the call that failed. */
function systemCode(e: ErrorFields): string | undefined {
  return typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) && typeof e.syscall === 'string' ? e.code : undefined;
}

/** Drizzle's wrapper around a failed statement (its message holds the SQL). */
const isFailedQuery = (e: ErrorFields) => typeof e.message === 'string' && e.message.startsWith('Failed query:');

/** Any error raised by the database or its driver. */
export function isDatabaseError(err: unknown): boolean {
  for (const e of chain(err)) if (sqlState(e) || isFailedQuery(e)) return true;
  return false;
}

/**
 * A crowd, not a fault: pg-pool's words when no connection came free within the wait (config.ts `pool.waitMs`), and
 * PgBouncer's when its own wait ran out or it took no more clients.
 */
const BUSY = /^(timeout exceeded when trying to connect|query_wait_timeout|no more connections allowed)/;
/** SQLSTATE of a statement cancelled by statement_timeout (or by an operator). */
const QUERY_CANCELED = '57014';

/** The disk or database failure behind `err`, or undefined when it is something else (a refusal, a bug). */
export function storageFailure(err: unknown): StorageFailure | undefined {
  let viaDriver = false;
  for (const e of chain(err)) {
    if (typeof e.message === 'string' && BUSY.test(e.message)) {
      return { kind: 'busy', code: sqlState(e), message: STORAGE_MESSAGES.busy };
    }
    const state = sqlState(e);
    if (state === QUERY_CANCELED) return { kind: 'slow', code: state, message: STORAGE_MESSAGES.slow };
    if (state) {
      if (!UNAVAILABLE_SQLSTATE.test(state) && state !== IN_FAILED_TRANSACTION) return undefined;
      const reason = SQL_REASONS[state];
      return {
        kind: 'database',
        code: state,
        message: reason ? STORAGE_MESSAGES.databaseBecause(reason) : STORAGE_MESSAGES.database,
      };
    }
    const code = systemCode(e);
    if (code && DISK_REASONS[code]) return { kind: 'disk', code, message: STORAGE_MESSAGES.disk(DISK_REASONS[code]) };
    // The driver could not reach the server at all (refused, reset…).
    if (code && viaDriver) return { kind: 'database', code, message: STORAGE_MESSAGES.database };
    if (viaDriver && isLostConnection(e)) return { kind: 'database', code, message: STORAGE_MESSAGES.database };
    if (isFailedQuery(e)) viaDriver = true;
  }
  return undefined;
}

/** The driver's own words when the database cannot be reached (pg: terminated, timeout, ended pool; PGlite closed). */
const LOST_CONNECTION = /connect|terminated|timeout|closed|pool|not queryable/i;

function isLostConnection(e: ErrorFields): boolean {
  return (typeof e.message === 'string' && LOST_CONNECTION.test(e.message)) || e instanceof WebAssembly.RuntimeError;
}

/** File system errors other than the storage failures above (their messages carry the server's paths). */
const FILE_CODES = new Set(['ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'EXDEV', 'ELOOP', 'ENAMETOOLONG']);

/**
 * What an error field may say of `err`: the French message of a storage failure, a short French sentence for any
 * other database error or file error (never their SQL or paths), else the error's own message (the French refusals
 * our code raises).
 */
export function publicReason(err: unknown): string {
  const failure = storageFailure(err);
  if (failure) return failure.message;
  if (isDatabaseError(err)) return STORAGE_MESSAGES.databaseError;
  for (const e of chain(err)) {
    const code = systemCode(e);
    if (code && FILE_CODES.has(code)) return STORAGE_MESSAGES.fileError(code);
  }
  return err instanceof Error ? err.message : String(err);
}
