import { chromiumInstalled, chromiumPath } from './chromium.ts';

if (!chromiumInstalled()) {
  console.error(`Chromium not found at ${chromiumPath}: run \`apt-get install -y chromium\` (or set CHROMIUM_PATH).`);
  process.exit(1);
}
