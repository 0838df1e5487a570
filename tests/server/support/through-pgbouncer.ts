// `npm run test:pgbouncer`: the tenant isolation suites on PostgreSQL through PgBouncer in transaction mode (issue 19).
// Every test database is created, migrated, seeded and queried through PgBouncer (TEST_DATABASE_URL); LISTEN and the
// advisory lock go to the server itself (TEST_DATABASE_SESSION_URL). Exits with vitest's code.
import { spawn } from 'node:child_process';
import { startPgBouncer } from '../../support/pgbouncer.ts';

// More suites may follow on the command line (`npm run test:pgbouncer -- tests/server/tasks-two-workers.test.ts`): the
// statement timeout, notification and job queue suites pass through PgBouncer too, but each costs CI 5 to 15 s more.
const SUITES = [
  'tests/server/isolation.test.ts',
  'tests/server/row-level-security.test.ts',
  'tests/server/pgbouncer.test.ts',
];

// The server's own admin URL (user postgres, no password: PgBouncer's auth_file knows no other).
const server = new URL(
  process.env.TEST_DATABASE_SESSION_URL ||
    process.env.TEST_DATABASE_URL ||
    'postgres://postgres@127.0.0.1:5432/postgres',
);
const bouncer = await startPgBouncer({
  upstreamHost: server.hostname,
  upstreamPort: Number(server.port || 5432),
  // Fewer server connections than a test app's pool (10): its transactions share them.
  poolSize: 3,
  maxClientConn: 200,
});
if (!bouncer) {
  console.error('test:pgbouncer: PgBouncer is not installed (PGBOUNCER_PATH or /usr/sbin/pgbouncer)');
  process.exit(1);
}
console.log(`test:pgbouncer: PgBouncer on port ${bouncer.port} in front of ${server.host}`);

let code = 1;
try {
  code = await new Promise<number>((resolve, reject) => {
    const vitest = spawn('npx', ['vitest', 'run', '--project', 'server', ...SUITES, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: {
        ...process.env,
        TEST_DATABASE_URL: bouncer.url(server.pathname.slice(1) || 'postgres'),
        TEST_DATABASE_SESSION_URL: server.toString(),
      },
    });
    vitest.on('error', reject);
    // Ctrl-C or a CI time-out: vitest stops first, then PgBouncer below.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => vitest.kill(signal));
    vitest.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
} finally {
  await bouncer.stop();
}
process.exit(code);
