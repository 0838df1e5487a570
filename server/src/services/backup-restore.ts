import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { dataVersionRepo } from '../repositories/data-versions.ts';
import type { Db } from '../db/client.ts';
import { backedUp, ident, qualified, readCatalog, rows, type TableInfo } from './backup-catalog.ts';
import { EXCLUDED_TABLES, refused, type InspectedArchive } from './backup-format.ts';
import { readArchive } from './backup-tar.ts';

// Restoring an inspected archive into the database, and the database errors a restore may meet.

const INSERT_ROWS = 1000;
const INSERT_BYTES = 4 * 1024 * 1024;

/** Splits a stream of bytes into its lines (UTF-8, without the newline). */
async function* linesOf(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  for await (const chunk of body) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      yield (pending.length > 0 ? Buffer.concat([...pending, piece]) : piece).toString('utf8');
      pending = [];
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) throw refused('l’archive est corrompue (ligne incomplète).');
}

async function insertBatch(tx: Db, table: TableInfo, lines: string[]): Promise<void> {
  const columns = sql.raw(table.insertColumns.map(ident).join(', '));
  const overriding = sql.raw(table.hasIdentity ? 'overriding system value' : '');
  await tx.execute(
    sql`insert into ${qualified(table.name)} (${columns}) ${overriding}
        select ${columns} from jsonb_populate_recordset(null::${qualified(table.name)}, ${`[${lines.join(',')}]`}::jsonb)`,
  );
}

/** SQLSTATE of a database error, when there is one. */
const sqlState = (err: unknown): string | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
  return code && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
};

/** The connected role may not switch off triggers and foreign keys: a restore is impossible here. */
export class RestoreNotPermittedError extends Error {}

/** Refuses early (and clearly) when the role may not set session_replication_role. */
export async function checkRestorePermitted(db: Db): Promise<void> {
  const probe = new Error('probe');
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql.raw('set local session_replication_role = replica'));
      throw probe;
    });
  } catch (err) {
    if (err === probe) return;
    if (sqlState(err) === '42501') {
      throw new RestoreNotPermittedError(
        'Restauration impossible : le rôle de connexion à la base de données ne peut pas désactiver les ' +
          'déclencheurs (session_replication_role est réservé aux superutilisateurs PostgreSQL ; accordez-le avec ' +
          '« GRANT SET ON PARAMETER session_replication_role »).',
      );
    }
    throw err;
  }
}

export interface LoadSummary {
  tables: number;
  rows: number;
}

/**
 * Replaces every backed-up table's rows with the archive's, inside the caller's transaction: triggers and foreign
 * key checks off (the audit trail's append-only rule and the counters' triggers must not fire: the counters come
 * back as saved), every table locked first (nothing written meanwhile survives), sequences set to their column's
 * maximum, and the rows of excluded tables that now point nowhere treated as their foreign key says.
 */
export async function loadArchive(
  tx: Db,
  file: string,
  inspected: InspectedArchive,
  signal?: AbortSignal,
): Promise<LoadSummary> {
  try {
    await tx.execute(sql.raw('set local session_replication_role = replica'));
  } catch (err) {
    if (sqlState(err) === '42501') throw new RestoreNotPermittedError('Restauration impossible : droits insuffisants.');
    throw err;
  }
  const catalog = await readCatalog(tx);
  const tables = backedUp(catalog);
  const byName = new Map(tables.map((t) => [t.name, t]));
  const expected = new Map(inspected.manifest.tables.map((t) => [t.name, t]));
  await tx.execute(sql.raw("set local lock_timeout = '60s'"));
  await tx.execute(
    sql.raw(`lock table ${tables.map((t) => `public.${ident(t.name)}`).join(', ')} in access exclusive mode`),
  );
  for (const table of tables) await tx.execute(sql`delete from ${qualified(table.name)}`);

  let total = 0;
  const loaded = new Set<string>();
  const measured = await readArchive(file, async (header, body) => {
    const name = /^db\/([^/]+)\.jsonl$/.exec(header.name)?.[1];
    const table = name ? byName.get(name) : undefined;
    if (!table) return;
    const hash = createHash('sha256');
    let count = 0;
    const hashed = (async function* () {
      for await (const chunk of body) {
        hash.update(chunk);
        yield chunk;
      }
    })();
    let batch: string[] = [];
    let bytes = 0;
    for await (const line of linesOf(hashed)) {
      batch.push(line);
      bytes += line.length;
      count++;
      if (batch.length >= INSERT_ROWS || bytes >= INSERT_BYTES) {
        signal?.throwIfAborted();
        await insertBatch(tx, table, batch);
        batch = [];
        bytes = 0;
      }
    }
    if (batch.length > 0) await insertBatch(tx, table, batch);
    const want = expected.get(table.name);
    // Checked again: the file could have changed since it was inspected.
    if (!want || hash.digest('hex') !== want.sha256 || count !== want.rows) {
      throw refused(`l’archive a changé pendant la restauration (« ${header.name} »).`);
    }
    loaded.add(table.name);
    total += count;
  });
  if (measured.sha256 !== inspected.sha256 || loaded.size !== tables.length) {
    throw refused('l’archive a changé pendant la restauration.');
  }

  for (const table of tables) {
    for (const { column, sequence } of table.sequences) {
      await tx.execute(
        sql`select setval(${sequence}::regclass,
              coalesce((select max(${sql.raw(ident(column))}) from ${qualified(table.name)}), 1),
              (select max(${sql.raw(ident(column))}) from ${qualified(table.name)}) is not null)`,
      );
    }
  }
  await settleExcludedReferences(tx, tables);
  // Triggers were off: every tenant's data changed all the same, so no dashboard answer kept from before may stay.
  await dataVersionRepo.bumpAll(tx);
  return { tables: tables.length, rows: total };
}

/**
 * The excluded tables keep their rows, but with foreign keys off nothing cascaded: a run of a tenant that no longer
 * exists is deleted (ON DELETE CASCADE), a backup made by an account that no longer exists loses its author (SET
 * NULL), as the foreign keys would have done.
 */
async function settleExcludedReferences(tx: Db, restored: readonly TableInfo[]): Promise<void> {
  const names = restored.map((t) => t.name);
  const keys = await rows<{ source: string; column: string; target: string; target_column: string; action: string }>(
    tx,
    sql`select s.relname as source, sa.attname as column, t.relname as target, ta.attname as target_column,
          k.confdeltype::text as action
        from pg_constraint k
        join pg_class s on s.oid = k.conrelid
        join pg_class t on t.oid = k.confrelid
        join pg_attribute sa on sa.attrelid = k.conrelid and sa.attnum = k.conkey[1]
        join pg_attribute ta on ta.attrelid = k.confrelid and ta.attnum = k.confkey[1]
        where k.contype = 'f' and k.connamespace = 'public'::regnamespace and array_length(k.conkey, 1) = 1`,
  );
  for (const key of keys) {
    if (!EXCLUDED_TABLES.includes(key.source) || !names.includes(key.target)) continue;
    const orphan = sql`${sql.raw(ident(key.column))} is not null and not exists (
      select 1 from ${qualified(key.target)} t where t.${sql.raw(ident(key.target_column))} = s.${sql.raw(ident(key.column))})`;
    if (key.action === 'c') {
      await tx.execute(sql`delete from ${qualified(key.source)} s where ${orphan}`);
    } else {
      await tx.execute(sql`update ${qualified(key.source)} s set ${sql.raw(ident(key.column))} = null where ${orphan}`);
    }
  }
}

/** Fresh planner statistics for the restored tables (after the commit; best effort, as pg_restore advises). */
export async function analyzeRestored(db: Db): Promise<void> {
  const tables = backedUp(await readCatalog(db));
  await db.execute(sql.raw(`analyze ${tables.map((t) => `public.${ident(t.name)}`).join(', ')}`));
}

/** A database error caused by the archive's content (a crafted file whose checksums match): refused, not a 500. */
export function isDataError(err: unknown): boolean {
  const state = sqlState(err);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}

/** A lock wait that timed out (another transaction kept a table busy). */
export const isLockTimeout = (err: unknown) => sqlState(err) === '55P03';
