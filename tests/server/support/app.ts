import { afterAll, beforeAll } from 'vitest';
import { createTestApp, onPostgres, type TestApp } from '../helpers.ts';

/** Which backend a suite runs on, for its describe titles. */
export const backend = onPostgres ? 'PostgreSQL' : 'PGlite';

export type TestAppOptions = NonNullable<Parameters<typeof createTestApp>[0]>;

/** The fields of TestApp that the useTestApp handle reads from the running app (the compiler keeps this complete). */
const LIVE_FIELDS: Record<Exclude<keyof TestApp, 'close'>, true> = {
  app: true,
  database: true,
  tokens: true,
  staticDir: true,
  filesDir: true,
  jobs: true,
  heavyBudget: true,
  keptSignIn: true,
  requestGate: true,
};

/**
 * The app of the enclosing describe (or file): started in a beforeAll registered here, closed after the suite's
 * own afterAll hooks. Register it first, so the suite's beforeAll hooks find the app running.
 * `start` is the options of createTestApp, or a function that starts the app itself (under an environment, say).
 */
export function useTestApp(start: TestAppOptions | (() => Promise<TestApp>) = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = typeof start === 'function' ? await start() : await createTestApp(start);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  const live = (): TestApp => {
    if (!current) throw new Error('the test app runs from the suite’s beforeAll to its afterAll');
    return current;
  };
  const handle = { close: () => live().close() } as TestApp;
  for (const key of Object.keys(LIVE_FIELDS) as (keyof typeof LIVE_FIELDS)[]) {
    Object.defineProperty(handle, key, { get: () => live()[key], enumerable: true });
  }
  return handle;
}

/** Runs `fn` with these environment variables set (undefined: unset), then puts the previous values back. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(previous);
  }
}
