import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { sql, type SQL } from 'drizzle-orm';
import { projectPath } from '../config.ts';
import { rowsOf, type Db } from '../db/client.ts';
import { EXCLUDED_TABLES, type ManifestTable } from './backup-format.ts';

// The database side of a backup: the catalog of tables, the migration tag, the dump of a table and the document
// keys the rows reference.

/** A column of this name in a backed-up table holds a document store key: its file goes into the archive. */
const DOCUMENT_KEY_COLUMN = 'storage_key';

const FETCH_ROWS = 500;

export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(query));
}

export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const qualified = (table: string) => sql.raw(`public.${ident(table)}`);

/** What a dump and a restore need to know of one table. */
export interface TableInfo {
  name: string;
  /** Columns a restore writes: every column but the generated ones (recomputed by the database). */
  insertColumns: string[];
  /** Primary key columns, in key order (empty: no primary key). */
  keyColumns: string[];
  hasIdentity: boolean;
  /** Sequences owned by a column (identity or serial), set to the column's maximum after a restore. */
  sequences: { column: string; sequence: string }[];
  holdsDocumentKeys: boolean;
}

/** Every table of schema public with its columns, the excluded ones included (see backedUp()). */
export async function readCatalog(db: Db): Promise<TableInfo[]> {
  const columns = await rows<{
    table: string;
    name: string;
    generated: string;
    identity: string;
    sequence: string | null;
    key: number | null;
  }>(
    db,
    sql`select c.relname as "table", a.attname as name, a.attgenerated::text as generated,
          a.attidentity::text as identity,
          pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) as sequence,
          array_position(i.indkey::int2[], a.attnum) as key
        from pg_attribute a
        join pg_class c on c.oid = a.attrelid
        join pg_namespace n on n.oid = c.relnamespace
        left join pg_index i on i.indrelid = c.oid and i.indisprimary
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
          and a.attnum > 0 and not a.attisdropped
        order by c.relname, a.attnum`,
  );
  const byName = new Map<string, TableInfo & { keyed: { column: string; at: number }[] }>();
  for (const col of columns) {
    let table = byName.get(col.table);
    if (!table) {
      table = {
        name: col.table,
        insertColumns: [],
        keyColumns: [],
        hasIdentity: false,
        sequences: [],
        holdsDocumentKeys: false,
        keyed: [],
      };
      byName.set(col.table, table);
    }
    if (col.generated === '') table.insertColumns.push(col.name);
    if (col.identity !== '') table.hasIdentity = true;
    if (col.sequence) table.sequences.push({ column: col.name, sequence: col.sequence });
    if (col.key !== null) table.keyed.push({ column: col.name, at: Number(col.key) });
    if (col.name === DOCUMENT_KEY_COLUMN) table.holdsDocumentKeys = true;
  }
  return [...byName.values()].map(({ keyed, ...table }) => ({
    ...table,
    keyColumns: keyed.sort((a, b) => a.at - b.at).map((k) => k.column),
  }));
}

/** The tables a backup holds. */
export const backedUp = (catalog: readonly TableInfo[]) => catalog.filter((t) => !EXCLUDED_TABLES.includes(t.name));

interface JournalEntry {
  when: number;
  tag: string;
}

let journal: JournalEntry[] | undefined;

/** The tag of the last migration applied (drizzle records each one by its journal timestamp). */
export async function currentMigration(db: Db): Promise<string> {
  journal ??= (
    JSON.parse(readFileSync(projectPath('server', 'migrations', 'meta', '_journal.json'), 'utf8')) as {
      entries: JournalEntry[];
    }
  ).entries;
  const [last] = await rows<{ created_at: unknown }>(
    db,
    sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  );
  if (!last) return 'aucune';
  const when = Number(last.created_at);
  return journal.find((e) => e.when === when)?.tag ?? `inconnue-${when}`;
}

/** The order a table is written in: its primary key, else the whole row (stable, if slower). */
function orderOf(table: TableInfo): SQL {
  if (table.keyColumns.length === 0) return sql.raw('to_jsonb(vigie_row)::text');
  return sql.raw(table.keyColumns.map((c) => `vigie_row.${ident(c)}`).join(', '));
}

/**
 * Writes one table as JSON lines to `file` through a cursor (memory stays flat whatever the table's size), inside
 * the caller's transaction.
 */
export async function dumpTable(tx: Db, table: TableInfo, file: string, signal?: AbortSignal): Promise<ManifestTable> {
  const hash = createHash('sha256');
  let size = 0;
  let count = 0;
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  const closed = once(out, 'close');
  try {
    await tx.execute(
      sql`declare vigie_backup_cursor no scroll cursor for
          select to_jsonb(vigie_row)::text as line from ${qualified(table.name)} vigie_row order by ${orderOf(table)}`,
    );
    for (;;) {
      signal?.throwIfAborted();
      const batch = await rows<{ line: string }>(tx, sql.raw(`fetch forward ${FETCH_ROWS} from vigie_backup_cursor`));
      if (batch.length === 0) break;
      const chunk = Buffer.from(batch.map((r) => `${r.line}\n`).join(''), 'utf8');
      hash.update(chunk);
      size += chunk.length;
      count += batch.length;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    await tx.execute(sql.raw('close vigie_backup_cursor'));
    out.end();
    await closed;
  } catch (err) {
    out.destroy();
    await closed.catch(() => {});
    throw err;
  }
  return { name: table.name, rows: count, size, sha256: hash.digest('hex') };
}

/** The document keys the snapshot references, each once, sorted. */
export async function documentKeys(tx: Db, tables: readonly TableInfo[]): Promise<string[]> {
  const keys = new Set<string>();
  for (const table of tables.filter((t) => t.holdsDocumentKeys)) {
    const found = await rows<{ key: string }>(
      tx,
      sql`select ${sql.raw(ident(DOCUMENT_KEY_COLUMN))} as key from ${qualified(table.name)}
          where ${sql.raw(ident(DOCUMENT_KEY_COLUMN))} is not null`,
    );
    for (const { key } of found) keys.add(key);
  }
  return [...keys].sort();
}

/** The keys the database references now (a restore removes, after commit, those the archive does not bring back). */
export async function referencedDocumentKeys(db: Db): Promise<string[]> {
  return documentKeys(db, backedUp(await readCatalog(db)));
}
