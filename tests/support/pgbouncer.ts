import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/** A PgBouncer in transaction mode in front of a PostgreSQL server, for tests and benchmarks. */
export interface PgBouncer {
  port: number;
  /** A URL of database `dbName` through this PgBouncer (user postgres, no password). */
  url(dbName: string): string;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and removes its files. */
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** The PostgreSQL server behind it: 127.0.0.1 and 5432 by default. */
  upstreamHost?: string;
  upstreamPort?: number;
  /** Server connections per database and user (default_pool_size): 5 by default. */
  poolSize?: number;
  /** Client connections it accepts (max_client_conn): 200 by default. */
  maxClientConn?: number;
  /** How long a client's query waits for a server connection before PgBouncer refuses it: 30 s by default. */
  queryWaitTimeoutS?: number;
}

/** The binary: PGBOUNCER_PATH, else Debian's. */
export function pgBouncerPath(): string | undefined {
  const candidate = process.env.PGBOUNCER_PATH?.trim() || '/usr/sbin/pgbouncer';
  return existsSync(candidate) ? candidate : undefined;
}

/** A TCP port nobody listens on right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts a TCP connection on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts PgBouncer (a child process, not daemonized) in transaction mode in front of the PostgreSQL server, for every
 * database name (`*`, so throwaway test databases and `postgres` for CREATE/DROP DATABASE both go through), user
 * postgres without a password. Resolves once it accepts connections; undefined when PgBouncer is not installed.
 */
export async function startPgBouncer(opts: PgBouncerOptions = {}): Promise<PgBouncer | undefined> {
  const binary = pgBouncerPath();
  if (!binary) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'vigie-pgbouncer-'));
  // PgBouncer refuses to run as root: it switches to postgres, which must read its files.
  const asRoot = userInfo().uid === 0;
  let dropTo: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const { uid, gid } = postgresIds();
    dropTo = { uid, gid };
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o755);
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    if (dropTo) chownSync(file, dropTo.uid, dropTo.gid);
    return file;
  };

  let lastError: Error | undefined;
  // The port is free when picked; another process may take it before PgBouncer binds it, so try again then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const authFile = write('userlist.txt', '"postgres" ""\n');
    const ini = write(
      'pgbouncer.ini',
      [
        '[databases]',
        `* = host=${opts.upstreamHost ?? '127.0.0.1'} port=${opts.upstreamPort ?? 5432}`,
        '',
        '[pgbouncer]',
        'pool_mode = transaction',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        "unix_socket_dir = ''",
        'auth_type = trust',
        `auth_file = ${authFile}`,
        `max_client_conn = ${opts.maxClientConn ?? 200}`,
        `default_pool_size = ${opts.poolSize ?? 5}`,
        'min_pool_size = 0',
        'reserve_pool_size = 0',
        `query_wait_timeout = ${opts.queryWaitTimeoutS ?? 30}`,
        // node-postgres sends user, database and application_name at start-up, which PgBouncer knows: no
        // ignore_startup_parameters (it would drop a statement_timeout or options given in the URL without a word).
        'log_connections = 0',
        'log_disconnections = 0',
        'log_pooler_errors = 1',
        '',
      ].join('\n'),
    );
    const child = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), ini], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const exit = new Promise<void>((resolve) =>
      child.once('close', (code, signal) => {
        exited = { code, signal };
        resolve();
      }),
    );
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    const why = () =>
      `PgBouncer exited (${exited?.signal ?? `code ${exited?.code}`}):\n${stderr.trim() || '(nothing on stderr)'}`;

    const deadline = Date.now() + 10_000;
    let up = false;
    while (!exited && Date.now() < deadline) {
      if (await accepts(port)) {
        up = !exited;
        break;
      }
      await sleep(50);
    }
    if (up) {
      // A crash later is told on stderr of the test run, with PgBouncer's own words.
      let stopping = false;
      void exit.then(() => {
        if (!stopping) console.error(why());
      });
      return {
        port,
        url: (dbName) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(dbName)}`,
        async stop() {
          stopping = true;
          process.removeListener('exit', killOnExit);
          await stopChild(child, exit, () => exited !== undefined);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    process.removeListener('exit', killOnExit);
    await stopChild(child, exit, () => exited !== undefined);
    lastError = new Error(exited ? why() : `PgBouncer did not accept connections on ${port} within 10 s:\n${stderr}`);
    if (!/bind|address already in use/i.test(stderr)) break;
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError!;
}

async function stopChild(child: ChildProcess, exit: Promise<void>, done: () => boolean): Promise<void> {
  if (done()) return;
  child.kill('SIGTERM');
  const killed = await Promise.race([exit.then(() => true), sleep(5000).then(() => false)]);
  if (!killed) {
    child.kill('SIGKILL');
    await exit;
  }
}

/** The uid and gid of the postgres account (PgBouncer's -u switches to it). */
function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('PgBouncer refuses to run as root and there is no postgres account to switch to');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
