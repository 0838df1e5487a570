import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
  accessSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../config.ts';

/** Create the data dir if needed and prove we can write there, before anything touches the database. */
export function ensureWritableDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK | constants.R_OK);
  } catch (err) {
    throw new ConfigError(
      `data directory ${dir} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); set VIGIE_DATA_DIR to a writable folder`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite has no multi-process locking: two servers on one data dir would corrupt it.
 * A pid lock file refuses the second one; a stale lock (dead pid) is taken over.
 */
const heldLocks = new Set<string>();

export function lockDataDir(dir: string): () => void {
  const lockPath = path.join(dir, 'vigie.lock');
  if (heldLocks.has(lockPath))
    throw new ConfigError(`data directory ${dir} is in use by another Vigie process (pid ${process.pid})`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      heldLocks.add(lockPath);
      return () => {
        heldLocks.delete(lockPath);
        try {
          if (readFileSync(lockPath, 'utf8') === String(process.pid)) unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8'));
      // Our own pid here without a lock held in this process is a leftover (pid reuse, e.g. pid 1 in a container).
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new ConfigError(`data directory ${dir} is in use by another Vigie process (pid ${pid})`);
      }
      unlinkSync(lockPath);
    }
  }
  throw new ConfigError(`cannot lock data directory ${dir}`);
}

/** A secret an older version generated into the data dir (moved into the database since), if there is one. */
export function readSecretFile(dir: string, name: string): string | undefined {
  const file = path.join(dir, 'secrets', name);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined;
}

/**
 * The id of a data directory (`vigie-volume` in it, made on first use): processes on one PostgreSQL database
 * compare theirs, because a file one of them stores (an uploaded report, a backup) must be there for the others.
 */
export function dataVolumeOf(dir: string): string {
  const file = path.join(dir, 'vigie-volume');
  try {
    writeFileSync(file, randomUUID(), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(file, 'utf8').trim();
}
