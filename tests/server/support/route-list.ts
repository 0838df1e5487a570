import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import app from '../../../server/src/app.ts';
import { FASTIFY_OPTIONS } from '../../../server/src/build-app.ts';
import type { Database } from '../../../server/src/db/client.ts';
import { SecretBox } from '../../../server/src/lib/secret-box.ts';
import { TokenService } from '../../../server/src/lib/tokens.ts';
import { freshDatabase, TEST_SECRET } from '../helpers.ts';

/** The app on a fresh database, with every route it registered, collected as they registered. */
export interface AppWithRoutes {
  fastify: FastifyInstance;
  database: Database;
  routes: RouteOptions[];
  close: () => Promise<void>;
}

/**
 * For the suites that go over the whole route list (the OpenAPI document, the display credential): a route added
 * tomorrow is in their tables the day it is written.
 */
export async function appWithRouteList(): Promise<AppWithRoutes> {
  const fresh = await freshDatabase();
  const staticDir = mkdtempSync(path.join(tmpdir(), 'vigie-static-'));
  writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><html lang="fr"><title>Vigie</title></html>');
  const filesDir = mkdtempSync(path.join(tmpdir(), 'vigie-files-'));
  const routes: RouteOptions[] = [];
  const fastify = Fastify(FASTIFY_OPTIONS);
  fastify.addHook('onRoute', (route: RouteOptions) => {
    routes.push(route);
  });
  await fastify.register(app, {
    database: fresh.database,
    tokens: new TokenService(TEST_SECRET),
    secretBox: new SecretBox('test-encryption-key'),
    staticDir,
    filesDir,
    runJobs: false,
  });
  await fastify.ready();
  return {
    fastify,
    database: fresh.database,
    routes,
    close: async () => {
      await fastify.close();
      await fresh.drop();
      for (const dir of [staticDir, filesDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
