import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../server/src/config.ts';
import { DatabaseError } from '../../server/src/db/client.ts';
import { start, type Started } from '../../server/src/server.ts';
import { TEST_PASSWORD } from './helpers.ts';

const dirs: string[] = [];
const running: Started[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'vigie-start-'));
  dirs.push(dir);
  return dir;
}
function config(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    staticDir: tempDir(),
    jwtSecret: undefined,
    demoPassword: TEST_PASSWORD,
    logLevel: 'silent',
    ...overrides,
  };
}

afterEach(async () => {
  for (const s of running.splice(0)) await s.close().catch(() => {});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('configuration', () => {
  it('reads PORT, HOST, VIGIE_DATA_DIR and DATABASE_URL', () => {
    const c = loadConfig({
      PORT: '9999',
      HOST: '0.0.0.0',
      VIGIE_DATA_DIR: '/srv/vigie',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect(c).toMatchObject({ port: 9999, host: '0.0.0.0', dataDir: '/srv/vigie', databaseUrl: 'postgres://u@h/db' });
    expect(loadConfig({})).toMatchObject({ port: 8080, host: 'localhost', databaseUrl: undefined });
  });

  it('refuses a bad PORT or DATABASE_URL with a clear message', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be an integer/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL must start with postgres/);
  });
});

describe('start()', () => {
  it('migrates, seeds once and keeps the data across restarts', async () => {
    const c = config();
    const first = await start(c);
    running.push(first);
    const login = await fetch(`${first.url}/api/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'analyste', password: TEST_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const { access: token } = (await login.json()) as { access: string };
    await first.close();
    running.pop();
    expect(existsSync(path.join(c.dataDir, 'vigie.lock'))).toBe(false);
    // The keys live in the database, not in the data folder, and survive the restart.
    expect(existsSync(path.join(c.dataDir, 'secrets'))).toBe(false);

    // Another password in the environment must not re-seed or change existing accounts.
    const second = await start({ ...c, demoPassword: 'a-different-password' });
    running.push(second);
    const again = await fetch(`${second.url}/api/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'analyste', password: TEST_PASSWORD }),
    });
    expect(again.status).toBe(200);
    const me = await fetch(`${second.url}/api/current-user/`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
  });

  it('refuses an unwritable data directory', async () => {
    const parentFile = path.join(tempDir(), 'a-file');
    writeFileSync(parentFile, 'not a directory');
    await expect(start(config({ dataDir: path.join(parentFile, 'data') }))).rejects.toThrow(
      /data directory .* is not writable/,
    );
  });

  it('refuses a port already in use without touching the data', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const c = config({ port });
    try {
      await expect(start(c)).rejects.toThrow(
        new ConfigError(`port ${port} on 127.0.0.1 is already in use; stop the other process or set PORT`),
      );
      expect(existsSync(path.join(c.dataDir, 'pglite'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('refuses an unreachable DATABASE_URL', async () => {
    const err = await start(config({ databaseUrl: 'postgres://vigie:secret@127.0.0.1:1/nothing' })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as Error).message).toMatch(
      /cannot reach PostgreSQL at postgres:\/\/vigie:\*\*\*@127\.0\.0\.1:1\/nothing/,
    );
    expect((err as Error).message).not.toContain('secret');
  });

  it('refuses a second server on the same data directory', async () => {
    const c = config();
    running.push(await start(c));
    await expect(start({ ...c })).rejects.toThrow(/in use by another Vigie process/);
  });
});

describe('the server process', () => {
  const serverEntry = path.resolve('server/src/server.ts');
  function run(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited, out: () => stdout, err: () => stderr };
  }

  it('prints one clear line and exits non-zero on a bad configuration', async () => {
    const p = run({ PORT: 'nope', VIGIE_DATA_DIR: tempDir() });
    expect(await p.exited).toBe(1);
    expect(p.err().trim()).toBe('vigie: PORT must be an integer between 0 and 65535, got "nope"');
  });

  it('prints the URL and demo accounts, then closes cleanly on Ctrl-C (SIGINT)', async () => {
    const dataDir = tempDir();
    const p = run({ PORT: '0', HOST: '127.0.0.1', VIGIE_DATA_DIR: dataDir, VIGIE_DEMO_PASSWORD: TEST_PASSWORD });
    await expect
      .poll(() => p.out(), { timeout: 30_000, interval: 100 })
      .toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(p.out()).toContain('Demo accounts');
    expect(p.out()).toMatch(/superuser\s+admin/);
    const url = /listening on (http:\/\/\S+)/.exec(p.out())![1]!;
    expect((await fetch(`${url}/api/health/`)).status).toBe(200);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'vigie.lock'))).toBe(false);
  });
});
