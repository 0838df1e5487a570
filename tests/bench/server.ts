import { spawn } from 'node:child_process';

// The benches' Vigie processes: the server as `npm start` runs it, and the command line tools.

export interface BenchServer {
  url: string;
  pid: number;
  /** SIGINT (a clean close), resolved once the process exited. */
  stop: () => Promise<void>;
}

/**
 * `server/src/server.ts` on 127.0.0.1 and a free port with `env` (PGlite unless `env` names a DATABASE_URL), once it
 * says where it listens; fails after `timeoutMs` or when the process exits first.
 */
export async function serveVigie(env: Record<string, string>, timeoutMs = 120_000): Promise<BenchServer> {
  // As `npm start` runs it: a larger young generation (fewer scavenges under a crowd).
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', 'server/src/server.ts'], {
    env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', ...env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms: ${out}`)), timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  }).catch(async (err: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw err;
  });
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

/** A command line tool (`server/src/cli/…`) with `env`, resolved when it exits 0. */
export function runTsx(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** An access token of `username` on the Vigie at `url`. */
export async function signIn(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw new Error(`sign-in of ${username}: ${res.status}`);
  return ((await res.json()) as { access: string }).access;
}
