/**
 * `vigie <command>` (also `npm run serve`, `npm run worker`, `npm run keys:rotate`): the processes of a deployment
 * and its key rotation (docs/SCALING.md).
 */
import { loadConfig } from '../config.ts';
import { main } from '../server.ts';
import { KEYS_CHANNEL, KeyStore, keySettingsOf } from '../services/signing-keys.ts';
import { buildIsStale, buildPwa } from './build.ts';
import { withDatabase } from './with-database.ts';

const USAGE = `usage: vigie <command>
  start                 build the app if needed, then serve it and run the background jobs (one process; npm start)
  serve [--no-worker]   serve the app and the API; --no-worker leaves the jobs to workers (PostgreSQL only)
  worker                run the background jobs only (PostgreSQL only)
  keys rotate <access|seal>
                        a new signing (access) or sealing (seal) key held in the database; the old one stays accepted`;

function usage(): never {
  console.error(USAGE);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);

switch (command) {
  case 'start':
  case 'serve': {
    const flags = new Set(rest);
    if ([...flags].some((f) => f !== '--no-worker') || (command === 'start' && flags.size > 0)) usage();
    if (command === 'start' && buildIsStale()) {
      console.log('vigie: building the web app (first start or sources changed)…');
      await buildPwa();
    }
    await main(flags.has('--no-worker') ? 'web' : 'all');
    break;
  }
  case 'worker':
    if (rest.length > 0) usage();
    await main('worker');
    break;
  case 'keys': {
    const [action, purpose] = rest;
    if (action !== 'rotate' || (purpose !== 'access' && purpose !== 'seal') || rest.length !== 2) usage();
    const config = loadConfig();
    await withDatabase(async (database) => {
      const store = await KeyStore.open(database.db, keySettingsOf(config));
      const kid = await store.rotate(purpose);
      // Every process reloads its keys at once (and within a minute at worst).
      await database.notify(KEYS_CHANNEL, kid);
      console.log(`vigie: new ${purpose} key ${kid}; the previous one stays accepted`);
    }).catch((err: unknown) => {
      console.error(`vigie: ${(err as Error).message}`);
      process.exitCode = 1;
    });
    break;
  }
  default:
    usage();
}
