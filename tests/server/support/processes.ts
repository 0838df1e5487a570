import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { TEST_PASSWORD } from '../helpers.ts';

// Real server processes for the suites that kill, restart or multiply them: spawned as production runs them.

const SERVER = path.resolve('server/src/server.ts');
const VIGIE = path.resolve('server/src/cli/vigie.ts');
/** Test-only preload: hangs the reads and writes of the files VIGIE_TEST_STALL_FILES names. */
const STALL_FILES = path.resolve('tests/server/support/stall-files.ts');

export interface ServerProcess {
  /** Where it listens; undefined for a worker. */
  url: string | undefined;
  pid: number;
  output: () => string;
  kill: (signal: NodeJS.Signals) => Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** Runs `fn` after the current test, last registered first (processes are killed there too). */
export function afterThisTest(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

/**
 * `node server/src/server.ts` (or `vigie <args>`: `serve --no-worker`, `worker`) with the stall preload, once it
 * listens (or, for a worker, once it says it runs). Killed with SIGKILL after the test if still running.
 */
export async function startServer(env: Record<string, string>, args?: string[]): Promise<ServerProcess> {
  const entry = args ? [VIGIE, ...args] : [SERVER];
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', STALL_FILES, ...entry], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'error', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  cleanups.push(() => kill('SIGKILL'));
  const url = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)|worker running background jobs/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => reject(new Error(`the server exited:\n${output}`)));
  });
  return { url, pid: child.pid!, output: () => output, kill };
}

export type ProcessClient = (
  method: string,
  url: string,
  body?: { payload: Buffer; headers: Record<string, string> } | object,
) => Promise<{ status: number; body: Record<string, unknown> }>;

/**
 * A signed-in user's requests to a server process (JSON, or a multipart body from support/http.ts), with `headers`
 * on each (`x-tenant-id`, say).
 */
export async function client(
  server: ServerProcess,
  username: string,
  headers: Record<string, string> = {},
): Promise<ProcessClient> {
  const login = await fetch(`${server.url}/api/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: TEST_PASSWORD }),
  });
  expect(login.status).toBe(200);
  const { access } = (await login.json()) as { access: string };
  return withToken(server, access, headers);
}

/** Requests to `server` with this access token (and `headers`). */
export function withToken(server: ServerProcess, access: string, headers: Record<string, string> = {}): ProcessClient {
  return async (method, url, body) => {
    const raw = body && 'payload' in body && Buffer.isBuffer(body.payload);
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${access}`,
        ...headers,
        ...(raw ? (body as { headers: Record<string, string> }).headers : {}),
        ...(body && !raw ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: raw ? new Uint8Array((body as { payload: Buffer }).payload) : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
}

/**
 * `probe()` until it gives a value, every 100 ms, failing after `timeoutMs`. `seen` (optional) tells what was there
 * instead, for the failure message.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  seen?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`still waiting after ${timeoutMs} ms: ${what}${seen ? `\n${seen()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
