import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import app, { type AppOptions } from './app.ts';
import { pacedServerFactory } from './lib/request-intake.ts';
import { frameworkErrors } from './plugins/app/input-guard.ts';

export const FASTIFY_OPTIONS: FastifyServerOptions = {
  // New requests start a few milliseconds' worth per turn of the loop, so that a crowd cannot stall accepting.
  serverFactory: pacedServerFactory(),
  bodyLimit: 1024 * 1024,
  routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
  // A path that does not decode, or a path parameter over the router's limit, answered in French like the rest.
  frameworkErrors,
  // Unknown fields and wrong types are errors, not silently dropped or coerced.
  // `verbose` hands the failing schema to the error formatter, which reads its French `errorMessage`.
  ajv: {
    customOptions: {
      removeAdditional: false,
      coerceTypes: false,
      allErrors: false,
      verbose: true,
      keywords: ['errorMessage'],
    },
  },
};

/**
 * A ready Fastify instance with the app registered; used by the server and by the tests.
 * `onClose` runs when the instance closes (the server closes its database there).
 */
export async function buildApp(
  opts: AppOptions,
  serverOptions: FastifyServerOptions = {},
  onClose?: () => Promise<void>,
): Promise<FastifyInstance> {
  const fastify = Fastify({ ...FASTIFY_OPTIONS, ...serverOptions });
  if (onClose) fastify.addHook('onClose', onClose);
  await fastify.register(app, opts);
  await fastify.ready();
  return fastify;
}
