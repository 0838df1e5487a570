/**
 * What the tenant-data routes share: read/write guards, route options under a documentation tag, a row or 404,
 * and the check that an asset id names one of the tenant's assets.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDb } from '../../db/tenant-scope.ts';
import { notFound } from '../../domain/errors.ts';
import { canRead, canWrite, type Actor } from '../../policies/index.ts';
import { signedIn } from '../../plugins/app/authorization.ts';
import { IdParams, NoContent, replies } from '../../schemas/common.ts';
import { ASSET_UNKNOWN, invalid } from '../../schemas/fields.ts';

/** Route options: a signed-in reader of the tenant, and a writer (viewers get 403 before their body is looked at). */
export function accessGuards(
  app: FastifyInstance,
  writer: { may: (actor: Actor) => boolean; refusal: string } = {
    may: canWrite,
    refusal: 'modification réservée aux contributeurs',
  },
) {
  const read = app.guard((auth) => canRead(auth.actor));
  const requireWrite = async (request: FastifyRequest) =>
    app.authorize(request, writer.may(signedIn(request).actor), writer.refusal);
  return { read, write: { preValidation: [...read.preValidation, requireWrite] } };
}

/** The tenant's row, or 404. */
export async function found<T>(request: FastifyRequest, read: (tx: TenantDb) => Promise<T | undefined>): Promise<T> {
  const row = await request.tenantDb(read);
  if (!row) throw notFound();
  return row;
}

/**
 * An asset id of a body must name one of the tenant's assets (the foreign key alone would accept another
 * tenant's): 400 on asset_id otherwise. Answers what `lookup` found (an asset's name, say).
 */
export async function checkAsset<T>(
  request: FastifyRequest,
  assetId: number | null | undefined,
  lookup: (tx: TenantDb, id: number) => Promise<T | undefined | false>,
): Promise<T | undefined> {
  if (assetId === null || assetId === undefined) return undefined;
  const asset = await request.tenantDb((tx) => lookup(tx, assetId));
  if (asset === undefined || asset === false) throw invalid('asset_id', ASSET_UNKNOWN);
  return asset;
}

/**
 * Route options under one documentation tag: `read(schema)` for the tenant's readers, `write(schema)` for its
 * writers (viewers get the audited 403 before their body is looked at); `deleteById` registers a writer's DELETE of
 * one record: 204, or 404 when `remove` says there was none (false).
 */
export function taggedRoutes(app: FastifyInstance, tags: string[]) {
  const guard = accessGuards(app);
  const write = <S extends object>(schema: S) => ({ ...guard.write, schema: { tags, ...schema } });
  return {
    read: <S extends object>(schema: S) => ({ ...guard.read, schema: { tags, ...schema } }),
    write,
    deleteById: (path: string, remove: (request: FastifyRequest, id: number) => Promise<boolean | void>) =>
      app.delete<{ Params: { id: string } }>(
        path,
        write({ params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) }),
        async (request, reply) => {
          if ((await remove(request, Number(request.params.id))) === false) throw notFound();
          return reply.code(204).send();
        },
      ),
  };
}
