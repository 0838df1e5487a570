import { formatAccounts, isSeeded, seedDemoData } from '../db/seed.ts';
import { withDatabase } from './with-database.ts';

await withDatabase(async (database, config) => {
  if (await isSeeded(database.db)) {
    console.log('vigie: the database already holds data; nothing seeded');
  } else {
    const accounts = await seedDemoData(database.db, { password: config.demoPassword });
    console.log(formatAccounts(accounts, config.demoPassword !== undefined));
  }
});
