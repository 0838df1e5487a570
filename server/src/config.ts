import path from 'node:path';
import { KEPT_SIGN_IN_MODES, type KeptSignInMode } from './services/kept-sign-in.ts';

/** Runtime configuration, read once from the environment. */
export interface Config {
  host: string;
  port: number;
  /** Where PGlite keeps its files, and where generated secrets live. */
  dataDir: string;
  /** When set, PostgreSQL through node-postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
  /** PostgreSQL only: connections this process opens at most, and how long a request waits for a free one. */
  pool: PoolOptions;
  /** PostgreSQL only: how long one statement may run, per request class (reads, writes, exports, imports). */
  statementTimeouts: StatementTimeouts;
  /**
   * PostgreSQL only: a direct connection string for what needs a session of its own (LISTEN, the start-up advisory
   * lock) when DATABASE_URL goes through a transaction-mode pooler such as PgBouncer; DATABASE_URL otherwise.
   */
  databaseSessionUrl: string | undefined;
  /** Heavy requests (streamed exports, report uploads) one tenant may run at once in this process. */
  heavyPerTenant: number;
  /** When a request's signed-in state may come from memory (services/kept-sign-in.ts). */
  keptSignIn: KeptSignInMode;
  /** API requests this process serves at once; one more is answered 503 at once (plugins/app/request-gate.ts). */
  maxInFlight: number;
  /** Directory holding the built PWA (vite build output). */
  staticDir: string;
  /** HMAC key for access tokens; generated into the database when absent (docs/SCALING.md). */
  jwtSecret: string | undefined;
  /** Signing keys VIGIE_JWT_SECRET replaced, still accepted until their tokens expire. */
  jwtPreviousSecrets: string[];
  /** Key for secrets at rest (TOTP seeds); generated into the database when absent. */
  encryptionKey: string | undefined;
  /** Keys VIGIE_ENCRYPTION_KEY replaced, still able to open what they sealed. */
  encryptionPreviousKeys: string[];
  /** Password given to every seeded demo account; random ones are printed when absent. */
  demoPassword: string | undefined;
  logLevel: string;
  /** Trust X-Forwarded-* from a reverse proxy (needed to see https and the client IP). */
  trustProxy: boolean;
}

export interface PoolOptions {
  max: number;
  waitMs: number;
}

/** Heavy requests one tenant may run at once per process (plugins/app/tenant-budget.ts). */
export const DEFAULT_HEAVY_PER_TENANT = 2;

/**
 * API requests one process serves at once. Well above the 200 connections a SOC room and its analysts make (none of
 * them ever meets it), well below the thousand at which every answer would come too late.
 */
export const DEFAULT_MAX_IN_FLIGHT = 400;

export const DEFAULT_POOL: PoolOptions = { max: 10, waitMs: 3000 };

/** Request classes, each with its own statement timeout (milliseconds). */
export interface StatementTimeouts {
  /** GET and HEAD: a screen waits on them. */
  read: number;
  write: number;
  /** One batch of a streamed export. */
  export: number;
  /** One step of a scanner report's import (a background task). */
  import: number;
}

export const DEFAULT_STATEMENT_TIMEOUTS: StatementTimeouts = {
  read: 5000,
  write: 15_000,
  export: 60_000,
  import: 300_000,
};

export class ConfigError extends Error {}

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export function projectPath(...parts: string[]): string {
  return path.join(projectRoot, ...parts);
}

function parsePort(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parsePositive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function parseKeptSignIn(raw: string | undefined): KeptSignInMode {
  const value = raw?.trim().toLowerCase() || 'busy';
  if (!(KEPT_SIGN_IN_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(`VIGIE_KEPT_SIGN_IN must be one of ${KEPT_SIGN_IN_MODES.join(', ')}, got "${raw}"`);
  }
  return value as KeptSignInMode;
}

/** A comma-separated list, blanks dropped. */
const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const databaseSessionUrl = env.DATABASE_SESSION_URL?.trim() || undefined;
  for (const [name, url] of [
    ['DATABASE_URL', databaseUrl],
    ['DATABASE_SESSION_URL', databaseSessionUrl],
  ] as const) {
    if (url && !/^postgres(ql)?:\/\//.test(url))
      throw new ConfigError(`${name} must start with postgres:// or postgresql://`);
  }
  if (databaseSessionUrl && !databaseUrl) throw new ConfigError('DATABASE_SESSION_URL needs DATABASE_URL');
  const timeout = (name: keyof StatementTimeouts, variable: string) =>
    parsePositive(variable, env[variable], DEFAULT_STATEMENT_TIMEOUTS[name]);
  return {
    host: env.HOST?.trim() || 'localhost',
    port: parsePort(env.PORT, 8080),
    dataDir: path.resolve(env.VIGIE_DATA_DIR?.trim() || projectPath('data')),
    databaseUrl,
    pool: {
      max: parsePositive('VIGIE_DB_POOL_MAX', env.VIGIE_DB_POOL_MAX, DEFAULT_POOL.max),
      waitMs: parsePositive('VIGIE_DB_POOL_WAIT_MS', env.VIGIE_DB_POOL_WAIT_MS, DEFAULT_POOL.waitMs),
    },
    statementTimeouts: {
      read: timeout('read', 'VIGIE_DB_READ_TIMEOUT_MS'),
      write: timeout('write', 'VIGIE_DB_WRITE_TIMEOUT_MS'),
      export: timeout('export', 'VIGIE_DB_EXPORT_TIMEOUT_MS'),
      import: timeout('import', 'VIGIE_DB_IMPORT_TIMEOUT_MS'),
    },
    databaseSessionUrl,
    heavyPerTenant: parsePositive('VIGIE_TENANT_HEAVY_MAX', env.VIGIE_TENANT_HEAVY_MAX, DEFAULT_HEAVY_PER_TENANT),
    keptSignIn: parseKeptSignIn(env.VIGIE_KEPT_SIGN_IN),
    maxInFlight: parsePositive('VIGIE_MAX_IN_FLIGHT', env.VIGIE_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT),
    staticDir: path.resolve(env.VIGIE_STATIC_DIR?.trim() || projectPath('dist')),
    jwtSecret: env.VIGIE_JWT_SECRET?.trim() || undefined,
    jwtPreviousSecrets: list(env.VIGIE_JWT_PREVIOUS_SECRETS),
    encryptionKey: env.VIGIE_ENCRYPTION_KEY?.trim() || undefined,
    encryptionPreviousKeys: list(env.VIGIE_ENCRYPTION_PREVIOUS_KEYS),
    demoPassword: env.VIGIE_DEMO_PASSWORD || undefined,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    trustProxy: env.VIGIE_TRUST_PROXY === '1' || env.VIGIE_TRUST_PROXY === 'true',
  };
}
