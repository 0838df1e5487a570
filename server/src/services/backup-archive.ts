import { createHash } from 'node:crypto';
import { once, type EventEmitter } from 'node:events';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { sql, type SQL } from 'drizzle-orm';
import { extract as tarExtract, pack as tarPack, type Header, type Pack } from 'tar-stream';
import { projectPath } from '../config.ts';
import { rowsOf, type Database, type Db } from '../db/client.ts';
import {
  DiskDocumentStore,
  StoredFileMissingError,
  type DocumentStore,
  type StoredFile,
} from '../lib/document-store.ts';
import { VERSION } from '../version.ts';

// ---------------------------------------------------------------------------------------------------------------
// The archive format (docs/api-admin.md "Backups"): one .tar.gz holding db/<table>.jsonl (one to_jsonb(row) per
// line, in primary-key order), documents/<key> (the document store's files) and manifest.json, written last once
// every size and checksum is known.

export const BACKUP_FORMAT = 'vigie-backup';
export const BACKUP_FORMAT_VERSION = 1;

/**
 * Tables of schema public left out: the list of backups (it must survive a restore), the server's operational log
 * (written continuously) and the job queue's run history (it mirrors pg-boss, which is not backed up either: a
 * restored run row would contradict the queue and abort the runs in progress).
 */
export const EXCLUDED_TABLES: readonly string[] = ['backups', 'server_logs', 'task_runs'];

/** A column of this name in a backed-up table holds a document store key: its file goes into the archive. */
const DOCUMENT_KEY_COLUMN = 'storage_key';

export type Engine = Database['kind'];

export interface ManifestTable {
  name: string;
  rows: number;
  size: number;
  sha256: string;
}

export interface ManifestDocument {
  key: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: typeof BACKUP_FORMAT_VERSION;
  app_version: string;
  engine: Engine;
  /** Tag of the last migration applied to the database (server/migrations/meta/_journal.json). */
  migration: string;
  created_at: string;
  tables: ManifestTable[];
  documents: ManifestDocument[];
  /** Keys a row referenced whose file could not be read when the backup was taken. */
  missing_documents: string[];
}

/** A file that is not a restorable backup of this server: answered 400, nothing changed. */
export class BackupRefusedError extends Error {}

const refused = (why: string) => new BackupRefusedError(`Fichier refusé : ${why}`);

const ENGINE_NAMES: Record<Engine, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const FETCH_ROWS = 500;
const INSERT_ROWS = 1000;
const INSERT_BYTES = 4 * 1024 * 1024;
const TABLE_NAME_RE = /^[a-z_][a-z0-9_]{0,62}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------------------------------
// The database side: catalog, migration tag, dump and load.

async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  return rowsOf<T>(await db.execute(query));
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const qualified = (table: string) => sql.raw(`public.${ident(table)}`);

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
async function dumpTable(tx: Db, table: TableInfo, file: string, signal?: AbortSignal): Promise<ManifestTable> {
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
async function documentKeys(tx: Db, tables: readonly TableInfo[]): Promise<string[]> {
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

// ---------------------------------------------------------------------------------------------------------------
// Writing.

/** An entry header as written: the name, plus whatever differs from the defaults. */
type EntryHeader = Partial<Header> & { name: string };

/** Resolves when a (node or streamx) writable may take more, or closes (the caller's next step finds why). */
function drained(stream: object): Promise<void> {
  const w = stream as EventEmitter;
  return new Promise((resolve, reject) => {
    const done = () => {
      w.removeListener('drain', done);
      w.removeListener('close', done);
      w.removeListener('error', fail);
      resolve();
    };
    const fail = (err: Error) => {
      w.removeListener('drain', done);
      w.removeListener('close', done);
      reject(err);
    };
    w.once('drain', done);
    w.once('close', done);
    w.once('error', fail);
  });
}

/** Adds one entry from `source`, measuring it; rejects as soon as the archive's output fails. */
async function addEntry(
  pack: Pack,
  header: EntryHeader,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  outputFailed: Promise<never>,
): Promise<StoredFile> {
  const hash = createHash('sha256');
  let size = 0;
  let sink!: ReturnType<Pack['entry']>;
  const added = new Promise<void>((resolve, reject) => {
    sink = pack.entry({ mode: 0o600, type: 'file', ...header }, (err) => (err ? reject(err) : resolve()));
  });
  added.catch(() => {});
  for await (const chunk of source) {
    hash.update(chunk);
    size += chunk.length;
    if (!sink.write(chunk)) await Promise.race([drained(sink), outputFailed]);
  }
  sink.end(null);
  await Promise.race([added, outputFailed]);
  return { size, sha256: hash.digest('hex') };
}

export interface WriteArchiveInput {
  database: Database;
  store: DocumentStore;
  /** The archive's final path; written as a hidden .part file beside it, then renamed. */
  target: string;
  /** Scratch directory (tables are spooled there one at a time to learn their size). */
  workDir: string;
  createdAt: Date;
  signal?: AbortSignal;
  /**
   * Called inside the snapshot transaction and never awaited: on PGlite (one connection) a progress write waits
   * for the transaction's end, and awaiting it there would deadlock.
   */
  progress?: (percent: number) => Promise<void>;
}

export interface WrittenArchive extends StoredFile {
  manifest: BackupManifest;
}

/**
 * Writes a backup: every backed-up table read inside ONE transaction (REPEATABLE READ: a snapshot, whatever the
 * app writes meanwhile) and the documents its rows reference.
 */
export async function writeArchive(input: WriteArchiveInput): Promise<WrittenArchive> {
  const { database, store, target, workDir, createdAt, signal } = input;
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.part`);
  const pack = tarPack();
  const fileHash = createHash('sha256');
  let fileSize = 0;
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  const writing = pipeline(
    async function* () {
      for await (const chunk of pack as AsyncIterable<Buffer>) yield chunk;
    },
    createGzip(),
    async function* (gzipped: AsyncIterable<Buffer>) {
      for await (const chunk of gzipped) {
        fileHash.update(chunk);
        fileSize += chunk.length;
        yield chunk;
      }
    },
    out,
  );
  const outputFailed = writing.then(() => new Promise<never>(() => {}));
  outputFailed.catch(() => {});
  const mtime = createdAt;
  const report = (percent: number) => void input.progress?.(percent).catch(() => {});

  try {
    const manifest = await database.db.transaction(
      async (tx) => {
        const migration = await currentMigration(tx);
        const tables = backedUp(await readCatalog(tx));
        const written: ManifestTable[] = [];
        for (const [i, table] of tables.entries()) {
          const spool = path.join(workDir, `${table.name}.jsonl`);
          const dumped = await dumpTable(tx, table, spool, signal);
          await addEntry(
            pack,
            { name: `db/${table.name}.jsonl`, size: dumped.size, mtime },
            createReadStream(spool),
            outputFailed,
          );
          await rm(spool, { force: true });
          written.push(dumped);
          report(Math.floor(((i + 1) / tables.length) * 80));
        }
        const keys = await documentKeys(tx, tables);
        const documents: ManifestDocument[] = [];
        const missing: string[] = [];
        for (const [i, key] of keys.entries()) {
          signal?.throwIfAborted();
          const added = await addDocument(pack, store, key, workDir, mtime, outputFailed);
          if (added) documents.push({ key, ...added });
          else missing.push(key);
          if (i % 50 === 49) report(80 + Math.floor(((i + 1) / keys.length) * 19));
        }
        return {
          format: BACKUP_FORMAT,
          format_version: BACKUP_FORMAT_VERSION,
          app_version: VERSION,
          engine: database.kind,
          migration,
          created_at: createdAt.toISOString(),
          tables: written,
          documents,
          missing_documents: missing,
        } satisfies BackupManifest;
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    const json = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await addEntry(pack, { name: 'manifest.json', size: json.length, mtime }, [json], outputFailed);
    pack.finalize();
    await writing;
    await rename(partial, target);
    return { size: fileSize, sha256: fileHash.digest('hex'), manifest };
  } catch (err) {
    pack.destroy(err as Error);
    await writing.catch(() => {});
    await rm(partial, { force: true });
    throw err;
  }
}

/** Adds one document; null when its file is gone (recorded in the manifest, the backup goes on). */
async function addDocument(
  pack: Pack,
  store: DocumentStore,
  key: string,
  workDir: string,
  mtime: Date,
  outputFailed: Promise<never>,
): Promise<StoredFile | null> {
  const name = `documents/${key}`;
  if (store instanceof DiskDocumentStore) {
    let handle;
    try {
      handle = await open(store.pathOf(key), 'r');
    } catch {
      return null;
    }
    try {
      // The size from the open handle: the bytes read next are exactly these (keys are never rewritten).
      const { size } = await handle.stat();
      return await addEntry(pack, { name, size, mtime }, handle.createReadStream({ autoClose: false }), outputFailed);
    } finally {
      await handle.close();
    }
  }
  // A bucket object's length is learnt by spooling it first (one at a time).
  const spool = path.join(workDir, 'document');
  try {
    let content: Readable;
    try {
      content = await store.get(key);
    } catch (err) {
      if (err instanceof StoredFileMissingError) return null;
      throw err;
    }
    await pipeline(content, createWriteStream(spool, { mode: 0o600 }));
    const { size } = await stat(spool);
    return await addEntry(pack, { name, size, mtime }, createReadStream(spool), outputFailed);
  } finally {
    await rm(spool, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading.

/** Streams the archive's entries one at a time; gzip and tar errors become a refusal. Returns the file's measure. */
async function readArchive(
  file: string,
  onEntry: (header: Header, body: AsyncIterable<Buffer>) => Promise<void>,
): Promise<StoredFile> {
  const extract = tarExtract();
  const fileHash = createHash('sha256');
  let fileSize = 0;
  const unreadable = () =>
    refused('ce n’est pas une archive .tar.gz lisible (gzip ou tar invalide, ou fichier tronqué).');
  // A gzip or tar error, wherever it surfaces (the feeding, the next entry, or an entry's body being read).
  let broken = false;
  extract.on('error', () => {
    broken = true;
  });
  const feeding = pipeline(
    createReadStream(file),
    async function* (raw: AsyncIterable<Buffer>) {
      for await (const chunk of raw) {
        fileHash.update(chunk);
        fileSize += chunk.length;
        yield chunk;
      }
    },
    createGunzip(),
    async function (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        if (extract.destroyed) return;
        if (!extract.write(chunk)) await drained(extract);
      }
      extract.end(null);
    },
  ).catch((err: unknown) => {
    broken = true;
    extract.destroy(err as Error);
    throw err;
  });
  feeding.catch(() => {});

  const entries = extract[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<AsyncIterable<Buffer> & { header: Header }>;
      try {
        next = (await entries.next()) as IteratorResult<AsyncIterable<Buffer> & { header: Header }>;
      } catch {
        throw unreadable();
      }
      if (next.done) break;
      await onEntry(next.value.header, next.value);
      // Whatever onEntry left unread (the next entry only comes once this one is consumed).
      for await (const _ of next.value) void _;
    }
    try {
      await feeding;
    } catch {
      throw unreadable();
    }
  } catch (err) {
    // A pending gzip or tar error surfaces first: then the file is at fault, not the caller (nor the database).
    await new Promise((resolve) => setImmediate(resolve));
    const wasBroken = broken;
    extract.destroy();
    await feeding.catch(() => {});
    if (wasBroken && !(err instanceof BackupRefusedError)) throw unreadable();
    throw err;
  }
  return { size: fileSize, sha256: fileHash.digest('hex') };
}

async function measureBody(
  body: AsyncIterable<Buffer>,
): Promise<StoredFile & { lines: number; endsWithNewline: boolean }> {
  const hash = createHash('sha256');
  let size = 0;
  let lines = 0;
  let last = 10;
  for await (const chunk of body) {
    hash.update(chunk);
    size += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return { size, sha256: hash.digest('hex'), lines, endsWithNewline: last === 10 };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The manifest's shape, checked field by field (a hand-edited or foreign file never reaches the database). */
function parseManifest(raw: Buffer): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw refused('manifest.json illisible (JSON invalide).');
  }
  if (!isRecord(value) || value.format !== BACKUP_FORMAT) {
    throw refused('ce n’est pas une sauvegarde Vigie (format de manifest.json inconnu).');
  }
  if (value.format_version !== BACKUP_FORMAT_VERSION) {
    throw refused(`version de format de sauvegarde non prise en charge (${JSON.stringify(value.format_version)}).`);
  }
  const incomplete = refused('manifest.json incomplet ou invalide.');
  const { engine, migration, tables, documents } = value;
  const missing = value.missing_documents ?? [];
  if (engine !== 'pglite' && engine !== 'postgres') throw incomplete;
  if (typeof migration !== 'string' || typeof value.created_at !== 'string') throw incomplete;
  if (!Array.isArray(tables) || !Array.isArray(documents) || !Array.isArray(missing)) throw incomplete;
  for (const t of tables) {
    if (!isRecord(t) || typeof t.name !== 'string' || !TABLE_NAME_RE.test(t.name)) throw incomplete;
    if (!isCount(t.rows) || !isCount(t.size) || typeof t.sha256 !== 'string' || !SHA256_RE.test(t.sha256)) {
      throw incomplete;
    }
  }
  for (const d of documents) {
    if (!isRecord(d) || typeof d.key !== 'string' || !isCount(d.size)) throw incomplete;
    if (typeof d.sha256 !== 'string' || !SHA256_RE.test(d.sha256)) throw incomplete;
  }
  if (!missing.every((k) => typeof k === 'string')) throw incomplete;
  return {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    app_version: typeof value.app_version === 'string' ? value.app_version : '',
    engine,
    migration,
    created_at: value.created_at,
    tables: (tables as ManifestTable[]).map((t) => ({ name: t.name, rows: t.rows, size: t.size, sha256: t.sha256 })),
    documents: (documents as ManifestDocument[]).map((d) => ({ key: d.key, size: d.size, sha256: d.sha256 })),
    missing_documents: missing,
  };
}

/** What the running server accepts: its engine, its schema and its tables. */
export interface RunningShape {
  engine: Engine;
  migration: string;
  tables: readonly string[];
}

export async function runningShape(database: Database): Promise<RunningShape> {
  const db = database.db;
  return {
    engine: database.kind,
    migration: await currentMigration(db),
    tables: backedUp(await readCatalog(db)).map((t) => t.name),
  };
}

export interface InspectOptions {
  /** The checksum recorded when the file was written: any other file is refused as corrupted. */
  sha256?: string | null | undefined;
  /** Write the archive's documents into this directory (as a document store), for a restore. */
  stageDocumentsIn?: string | undefined;
}

export interface InspectedArchive extends StoredFile {
  manifest: BackupManifest;
}

/**
 * Reads the whole archive and checks everything a restore relies on, before anything is touched: readable gzip and
 * tar, only expected entries, a Vigie manifest of this engine and this schema, the same tables, and every file's
 * size, checksum (and row count). Throws BackupRefusedError otherwise.
 */
export async function inspectArchive(
  file: string,
  running: RunningShape,
  opts: InspectOptions = {},
): Promise<InspectedArchive> {
  const seen = new Map<string, StoredFile & { lines?: number }>();
  // Only its key check is used when no staging directory is given.
  const stage = new DiskDocumentStore(opts.stageDocumentsIn ?? path.join(path.dirname(file), 'nowhere'));
  let manifestRaw: Buffer | undefined;
  // Reported once the manifest is known: a foreign archive is first of all "not a Vigie backup".
  const unexpected: string[] = [];

  const measured = await readArchive(file, async (header, body) => {
    const name = header.name;
    if ((header.type ?? 'file') !== 'file') {
      unexpected.push(name);
      return;
    }
    if (seen.has(name) || (name === 'manifest.json' && manifestRaw)) {
      throw refused(`entrée en double « ${name} » dans l’archive.`);
    }
    if (name === 'manifest.json') {
      if ((header.size ?? 0) > MAX_MANIFEST_BYTES) throw refused('manifest.json trop volumineux.');
      const parts: Buffer[] = [];
      for await (const chunk of body) parts.push(chunk);
      manifestRaw = Buffer.concat(parts);
      return;
    }
    const table = /^db\/([^/]+)\.jsonl$/.exec(name)?.[1];
    if (table !== undefined && TABLE_NAME_RE.test(table)) {
      const m = await measureBody(body);
      if (!m.endsWithNewline) throw refused(`l’archive est corrompue (« ${name} » tronqué).`);
      seen.set(name, m);
      return;
    }
    if (name.startsWith('documents/')) {
      const key = name.slice('documents/'.length);
      try {
        stage.pathOf(key);
      } catch {
        throw refused(`nom de document invalide « ${name} » dans l’archive.`);
      }
      const m = opts.stageDocumentsIn ? await stage.put(key, Readable.from(body)) : await measureBody(body);
      seen.set(name, { size: m.size, sha256: m.sha256 });
      return;
    }
    unexpected.push(name);
  });

  if (opts.sha256 && measured.sha256 !== opts.sha256) {
    throw refused('l’archive est corrompue (son empreinte SHA-256 ne correspond plus à celle de sa création).');
  }
  if (!manifestRaw) throw refused('ce n’est pas une sauvegarde Vigie (manifest.json absent).');
  const manifest = parseManifest(manifestRaw);
  if (unexpected.length > 0) throw refused(`entrée inattendue « ${unexpected[0]} » dans l’archive.`);
  if (manifest.engine !== running.engine) {
    throw refused(
      `cette sauvegarde a été faite sur ${ENGINE_NAMES[manifest.engine]} et ce serveur utilise ` +
        `${ENGINE_NAMES[running.engine]} ; une sauvegarde ne se restaure que sur le même moteur de base de données.`,
    );
  }
  if (manifest.migration !== running.migration) {
    throw refused(
      `cette sauvegarde correspond au schéma « ${manifest.migration} » et ce serveur au schéma ` +
        `« ${running.migration} » ; elle ne peut être restaurée que sur la même version du schéma.`,
    );
  }
  const archived = manifest.tables.map((t) => t.name);
  const differ = [
    ...archived.filter((t) => !running.tables.includes(t)),
    ...running.tables.filter((t) => !archived.includes(t)),
  ];
  if (differ.length > 0 || new Set(archived).size !== archived.length) {
    throw refused(`les tables de la sauvegarde ne correspondent pas à celles de ce serveur (${differ.join(', ')}).`);
  }
  const expected = new Map<string, { size: number; sha256: string; rows?: number }>();
  for (const t of manifest.tables) expected.set(`db/${t.name}.jsonl`, t);
  for (const d of manifest.documents) {
    if (expected.has(`documents/${d.key}`)) throw refused('manifest.json incomplet ou invalide.');
    expected.set(`documents/${d.key}`, d);
  }
  for (const [name, want] of expected) {
    const got = seen.get(name);
    if (!got) throw refused(`l’archive est incomplète (« ${name} » absent).`);
    if (got.size !== want.size || got.sha256 !== want.sha256 || (want.rows !== undefined && got.lines !== want.rows)) {
      throw refused(`l’archive est corrompue (contenu de « ${name} » modifié).`);
    }
  }
  for (const name of seen.keys()) {
    if (!expected.has(name)) throw refused(`entrée inattendue « ${name} » dans l’archive.`);
  }
  return { ...measured, manifest };
}

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
