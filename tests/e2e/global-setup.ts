import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
    demoPassword: string;
  }
}

const DEMO_PASSWORD = 'e2e-demo-password-1234';

/** Starts the real server (built app, fresh PGlite data dir, free port) once for the e2e suite. */
export default async function setup(project: TestProject) {
  const appDir = path.resolve(process.env.VIGIE_E2E_APP_DIR ?? 'dist');
  if (!existsSync(path.join(appDir, 'index.html')))
    throw new Error('dist/ is missing: run `npm run build` first (npm run test:e2e does).');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-e2e-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/src/server.ts'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      VIGIE_DATA_DIR: dataDir,
      VIGIE_STATIC_DIR: appDir,
      VIGIE_DEMO_PASSWORD: DEMO_PASSWORD,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  project.provide('baseURL', url);
  project.provide('demoPassword', DEMO_PASSWORD);

  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
}
