import { sql, type SQL } from 'drizzle-orm';
import { pgArray } from '../db/arrays.ts';
import type { Database } from '../db/client.ts';
import { serverLogs } from '../db/schema.ts';
import { LEVEL_RANK, levelOfPino, type LogLevel } from '../domain/log-levels.ts';
import { SystemSettingsStore } from './system-settings.ts';

// The levels are pure and live in domain/ (the repository filters by them); kept here for existing imports.
export { LEVEL_RANK, LOG_LEVELS, levelOfPino, levelsFrom, type LogLevel } from '../domain/log-levels.ts';

/** One line waiting to be stored. */
export interface LogEntry {
  time: Date;
  level: LogLevel;
  message: string;
  requestId?: string | null;
  method?: string | null;
  url?: string | null;
  statusCode?: number | null;
  responseTimeMs?: number | null;
  tenantId?: string | null;
  userId?: number | null;
  context?: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------------------
// Redaction: nothing that opens a session or an account may reach the table.

export const REDACTED = '[REDACTED]';

/** Keys whose values are never stored, at any depth of a line's context. */
const SECRET_KEY =
  /pass(word|wd|phrase)?$|^pwd$|secret|token|authori[sz]ation|cookie|api[-_]?key|private[-_]?key|credential|otp|signature|^code$/i;
/** Query parameters dropped from stored URLs (same idea, plus the short names links use). */
const SECRET_PARAM =
  /^(auth|authorization|code|key|sig|signature|otp|session|sessionid|sid)$|pass|pwd|secret|token|cookie|api[-_]?key|credential/i;
/** Paths whose whole query string is dropped: sign-in, sign-out, registration, password and 2FA flows. */
const AUTH_PATH =
  /^\/(api\/)?(v1\/)?(token|auth|logout|register|login|reset-password|accounts\/(password|2fa|admin|login|logout))(\/|$)/i;

// 16 characters at least, so prose such as "Token refreshed successfully" stays readable.
const BEARER = /\b(Bearer|Token|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi;
const INLINE_SECRET = /\b(password|passwd|pwd|secret|token|api[-_]?key|refresh)(["']?\s*[:=]\s*["']?)[^\s"'&,;}]+/gi;

const MAX_STRING = 2000;
const MAX_DEPTH = 6;
const MAX_ITEMS = 50;
const MAX_CONTEXT_CHARS = 8000;

/** Masks bearer tokens, JWTs, credentials in URLs and `password=…` pairs inside free text. */
export function scrubText(text: string): string {
  const clipped = text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}…` : text;
  return clipped
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(URL_CREDENTIALS, (_m, head: string) => `${head}:${REDACTED}@`)
    .replace(INLINE_SECRET, (_m, key: string, sep: string) => `${key}${sep}${REDACTED}`);
}

/** A URL as stored: no query on authentication paths, secret-looking parameters masked elsewhere. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = scrubText(q < 0 ? url : url.slice(0, q));
  if (q < 0) return path;
  if (AUTH_PATH.test(path)) return `${path}?${REDACTED}`;
  const query = url.slice(q + 1);
  const params = new URLSearchParams(query);
  // Kept as sent when no parameter is named like a secret.
  if (![...params.keys()].some((k) => SECRET_PARAM.test(k))) return `${path}?${scrubText(query)}`;
  const kept = [...params].map(([k, v]) => [k, SECRET_PARAM.test(k) ? REDACTED : scrubText(v)] as const);
  return `${path}?${kept.map(([k, v]) => `${encodeURIComponent(k)}=${v === REDACTED ? v : encodeURIComponent(v)}`).join('&')}`;
}

/** A deep copy of a line's context with every secret-looking key masked and every string scrubbed. */
export function redactContext(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') {
    return typeof value === 'bigint' ? value.toString() : typeof value === 'function' ? undefined : value;
  }
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => redactContext(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, MAX_ITEMS)) {
    out[k] = SECRET_KEY.test(k) ? REDACTED : redactContext(v, depth + 1);
  }
  return out;
}

/** The context as stored: redacted, and cut to a bounded size so one huge object cannot bloat the table. */
function storedContext(context: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!context || Object.keys(context).length === 0) return {};
  const clean = redactContext(context) as Record<string, unknown>;
  const text = JSON.stringify(clean);
  return text.length <= MAX_CONTEXT_CHARS ? clean : { truncated: true, excerpt: text.slice(0, MAX_CONTEXT_CHARS) };
}

// Fastify's own per-request lines: the access line written by the server-logs plugin says the same, structured.
const FASTIFY_REQUEST_LINES = new Set(['incoming request', 'request completed']);
const PINO_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId', 'v']);

/** A pino JSON line as a log entry; undefined for lines the store does not keep. */
export function entryOfPinoLine(line: string): LogEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const obj = parsed as Record<string, unknown>;
  const msg = typeof obj.msg === 'string' ? obj.msg : '';
  if (FASTIFY_REQUEST_LINES.has(msg)) return undefined;
  const context: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!PINO_KEYS.has(k)) context[k] = v;
  const err = obj.err as { message?: unknown } | undefined;
  return {
    time: typeof obj.time === 'number' ? new Date(obj.time) : new Date(),
    level: levelOfPino(typeof obj.level === 'number' ? obj.level : 30),
    message: msg || (typeof err?.message === 'string' ? err.message : ''),
    requestId: typeof obj.reqId === 'string' ? obj.reqId : null,
    context,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The sink.

/** A stored line: every column given (the table's own id aside). */
type Row = Required<Omit<typeof serverLogs.$inferInsert, 'id'>>;

function rowOf(e: LogEntry): Row {
  return {
    time: e.time,
    level: e.level,
    message: scrubText(e.message),
    requestId: e.requestId ?? null,
    method: e.method ?? null,
    url: e.url === undefined || e.url === null ? null : redactUrl(e.url),
    statusCode: e.statusCode ?? null,
    responseTimeMs: e.responseTimeMs ?? null,
    tenantId: e.tenantId ?? null,
    userId: e.userId ?? null,
    context: storedContext(e.context),
  };
}

/**
 * One statement for a whole batch, its columns as arrays: under a crowd every API answer writes a line, and building
 * a multi-row insert value by value cost a tenth of the process's time (bench, issue 19).
 */
function insertRows(rows: readonly Row[]): SQL {
  const column = <T extends string | number | null>(of: (row: Row) => T) => pgArray(rows.map(of));
  return sql`insert into ${serverLogs} (time, level, message, request_id, method, url, status_code, response_time_ms,
    tenant_id, user_id, context)
    select * from unnest(${column((r) => r.time.toISOString())}::timestamptz[], ${column((r) => r.level)}::text[],
      ${column((r) => r.message)}::text[], ${column((r) => r.requestId)}::text[], ${column((r) => r.method)}::text[],
      ${column((r) => r.url)}::text[], ${column((r) => r.statusCode)}::integer[],
      ${column((r) => r.responseTimeMs)}::double precision[], ${column((r) => r.tenantId)}::uuid[],
      ${column((r) => r.userId)}::integer[], ${column((r) => JSON.stringify(r.context))}::jsonb[])`;
}

export interface LogSinkStats {
  /** Lines waiting for the next write. */
  buffered: number;
  /** Lines stored since the process started. */
  written: number;
  /** Lines lost: buffer over its cap, or a write the database refused. */
  dropped: number;
}

/**
 * Keeps the server's log lines in server_logs. Lines are buffered and written in batches by a timer (every
 * FLUSH_MS, or at once when BATCH lines wait), so a request never waits for the log table; past MAX_BUFFER lines
 * (database slow or down) new lines are dropped and counted. The system setting log_level is applied when a
 * batch is written. One sink per database in a process: the server's pino stream and the app's hooks share it.
 */
export class ServerLogSink {
  static readonly FLUSH_MS = 1000;
  static readonly BATCH = 200;
  static readonly MAX_BUFFER = 5000;
  private static readonly shared = new WeakMap<Database, ServerLogSink>();

  static of(database: Database): ServerLogSink {
    let sink = ServerLogSink.shared.get(database);
    if (!sink) ServerLogSink.shared.set(database, (sink = new ServerLogSink(database)));
    return sink;
  }

  private buffer: LogEntry[] = [];
  private written = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** A flush asked for and not started yet: further asks join it. */
  private queued: Promise<void> | undefined;
  private closed = false;

  /** A pino destination (pino.multistream entry): every JSON line the server logs goes through push(). */
  readonly stream = {
    write: (line: string): void => {
      const entry = entryOfPinoLine(line);
      if (entry) this.push(entry);
    },
  };

  private constructor(private readonly database: Database) {}

  push(entry: LogEntry): void {
    if (this.closed) return;
    if (this.buffer.length >= ServerLogSink.MAX_BUFFER) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= ServerLogSink.BATCH) {
      clearTimeout(this.timer);
      this.timer = undefined;
      void this.flush();
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, ServerLogSink.FLUSH_MS).unref();
    }
  }

  /** Writes every line buffered so far (tests and shutdown call it; the timer does otherwise). Never rejects. */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.chain.then(() => {
      this.queued = undefined;
      return this.writeOut();
    });
    this.queued = next;
    this.chain = next;
    return next;
  }

  /** Final flush; later lines are ignored (the database is about to close). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    this.closed = true;
    this.buffer = [];
  }

  /** Accepts lines again after close() (an app rebuilt on the same database, as the tests do). */
  reopen(): void {
    this.closed = false;
  }

  stats(): LogSinkStats {
    return { buffered: this.buffer.length, written: this.written, dropped: this.dropped };
  }

  private async writeOut(): Promise<void> {
    let minRank: number | undefined;
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, ServerLogSink.BATCH);
      if (minRank === undefined) {
        try {
          const level = (await SystemSettingsStore.of(this.database.db).get()).log_level as LogLevel;
          minRank = LEVEL_RANK[level] ?? LEVEL_RANK.info;
        } catch {
          minRank = LEVEL_RANK.info;
        }
      }
      const rank = minRank;
      const rows = batch.filter((e) => LEVEL_RANK[e.level] >= rank).map(rowOf);
      if (rows.length === 0) continue;
      try {
        await this.database.db.execute(insertRows(rows));
        this.written += rows.length;
      } catch {
        // Never logged: a log line about the log table would come straight back here.
        this.dropped += rows.length;
      }
    }
  }
}
