import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

interface VigieDb extends DBSchema {
  /** Small key/value records the app and the service worker both read (session, modes). */
  kv: { key: string; value: unknown };
}

let dbPromise: Promise<IDBPDatabase<VigieDb>> | undefined;

export function db(): Promise<IDBPDatabase<VigieDb>> {
  dbPromise ??= openDB<VigieDb>('vigie', 1, {
    upgrade(database) {
      database.createObjectStore('kv');
    },
  });
  return dbPromise;
}

export async function kvGet<T>(key: string): Promise<T | undefined> {
  return (await (await db()).get('kv', key)) as T | undefined;
}

export async function kvSet(key: string, value: unknown): Promise<void> {
  await (await db()).put('kv', value, key);
}

export async function kvDelete(key: string): Promise<void> {
  await (await db()).delete('kv', key);
}

/** Closes the connection (so the database can be deleted, e.g. on logout or in tests). */
export async function closeStorage(): Promise<void> {
  const pending = dbPromise;
  dbPromise = undefined;
  if (pending) (await pending).close();
}
