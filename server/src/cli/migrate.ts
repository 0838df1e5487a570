import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { ensureWritableDir, lockDataDir } from '../lib/data-dir.ts';

const config = loadConfig();
ensureWritableDir(config.dataDir);
const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pglite` });
try {
  await database.migrate();
  console.log(`vigie: migrations applied (${database.kind})`);
} finally {
  await database.close();
  unlock();
}
