import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { pack as tarPack, type Pack } from 'tar-stream';
import type { Database } from '../db/client.ts';
import {
  DiskDocumentStore,
  StoredFileMissingError,
  type DocumentStore,
  type StoredFile,
} from '../lib/document-store.ts';
import { VERSION } from '../version.ts';
import { backedUp, currentMigration, documentKeys, dumpTable, readCatalog } from './backup-catalog.ts';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  parseManifest,
  refused,
  TABLE_NAME_RE,
  type BackupManifest,
  type Engine,
  type InspectedArchive,
  type ManifestDocument,
  type ManifestTable,
} from './backup-format.ts';
import { addEntry, measureBody, readArchive } from './backup-tar.ts';

// Writing a backup archive and checking one before a restore. The format, the database side, the tar plumbing and
// the restore itself have their own modules; what the rest of the server uses of them is re-exported here.
export * from './backup-format.ts';
export * from './backup-restore.ts';
export { backedUp, currentMigration, readCatalog, referencedDocumentKeys, type TableInfo } from './backup-catalog.ts';

const ENGINE_NAMES: Record<Engine, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** Where an archive is written until complete: a hidden `.part` file beside its final path. */
export function partialPath(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.part`);
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
  const partial = partialPath(target);
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
