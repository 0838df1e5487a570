import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { ensureWritableDir, lockDataDir } from '../lib/data-dir.ts';

/**
 * A command line tool's run on the configured database, migrated: the embedded one's data folder is locked against a
 * running server for the duration, and the database is closed however `work` ends.
 */
export async function withDatabase<T>(work: (database: Database, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  ensureWritableDir(config.dataDir);
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pglite` });
  try {
    await database.migrate();
    return await work(database, config);
  } finally {
    await database.close();
    unlock();
  }
}
