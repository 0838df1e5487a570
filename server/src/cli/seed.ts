import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { formatAccounts, isSeeded, seedDemoData } from '../db/seed.ts';
import { ensureWritableDir, lockDataDir } from '../lib/data-dir.ts';

const config = loadConfig();
ensureWritableDir(config.dataDir);
const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pglite` });
try {
  await database.migrate();
  if (await isSeeded(database.db)) {
    console.log('vigie: the database already holds data; nothing seeded');
  } else {
    const accounts = await seedDemoData(database.db, { password: config.demoPassword });
    console.log(formatAccounts(accounts, config.demoPassword !== undefined));
  }
} finally {
  await database.close();
  unlock();
}
