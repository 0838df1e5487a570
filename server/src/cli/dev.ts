import { spawn } from 'node:child_process';
import { projectPath } from '../config.ts';

/**
 * `npm run dev`: the API in watch mode on API_PORT (default 8081) and Vite's dev server
 * (HMR, service worker enabled) proxying /api to it.
 */
const apiPort = process.env.API_PORT ?? '8081';
const api = spawn(process.execPath, ['--watch', '--import', 'tsx', projectPath('server/src/server.ts')], {
  stdio: 'inherit',
  env: { ...process.env, PORT: apiPort },
});
const { createServer } = await import('vite');
const vite = await createServer({ configFile: projectPath('vite.config.ts') });
await vite.listen();
vite.printUrls();

const stop = async () => {
  api.kill('SIGTERM');
  await vite.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
