import { withDatabase } from './with-database.ts';

await withDatabase(async (database) => {
  console.log(`vigie: migrations applied (${database.kind})`);
});
