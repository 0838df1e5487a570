import { buildIsStale, buildPwa } from './build.ts';
import { main } from '../server.ts';

// `npm start`: build the PWA only when its sources changed, then run the server in this same process.
if (buildIsStale()) {
  console.log('vigie: building the web app (first start or sources changed)…');
  await buildPwa();
}
await main();
