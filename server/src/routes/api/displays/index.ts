import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { APPROVAL_ATTEMPTS_PER_USER, PAIRING_LIMIT_WINDOW_MS, PAIRINGS_PER_IP } from '../../../domain/displays.ts';
import { ApiError, notFound } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { DISPLAY_ME_PATH, displayUnknown } from '../../../plugins/app/display-devices.ts';
import { canManageDisplays, canShowOnDisplay } from '../../../policies/index.ts';
import { DisplaySchema, presentDisplay } from '../../../presenters/display.ts';
import { displayCredentialRepo, DisplaysRepository, type DisplayRow } from '../../../repositories/displays.ts';
import { NoContent, Nullable, replies, Type } from '../../../schemas/common.ts';
import {
  ApproveBody,
  ChangeBody,
  DisplayParams,
  MESSAGES,
  PairingHeaders,
  PairingParams,
  readApproval,
  readChange,
} from '../../../schemas/displays.ts';
import { invalid } from '../../../schemas/fields.ts';
import { approvePairing, checkIn, pollPairing, requestPairing, viewOf, viewsOf } from '../../../services/displays.ts';

const BASE = '/api/displays/';
const ITEM_PATH = `${BASE}:id/`;

const PairingSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    code: Type.String({ description: 'Code à afficher (K7QH-4MZP), valable 10 minutes, à usage unique' }),
    poll_secret: Type.String({ description: 'À renvoyer dans X-Display-Pairing pour suivre l’appairage' }),
    expires_at: Type.String({ format: 'date-time' }),
  },
  { title: 'DisplayPairing' },
);
const PairingStateSchema = Type.Object(
  {
    status: Type.Union(['pending', 'approved', 'expired', 'consumed'].map((s) => Type.Literal(s))),
    expires_at: Type.String({ format: 'date-time' }),
    token: Type.Optional(Type.String({ description: 'Identifiant de l’écran, remis une seule fois' })),
    display: Type.Optional(DisplaySchema),
  },
  { title: 'DisplayPairingState' },
);
const MeSchema = Type.Object(
  {
    display: DisplaySchema,
    renewed_token: Type.Optional(Type.String({ description: 'Nouvel identifiant (l’ancien vaut encore 24 h)' })),
  },
  { title: 'DisplayMe' },
);
const NoBody = Nullable(Type.Object({}, { additionalProperties: false }));

/**
 * Paired wall screens (docs/displays.md): a screen asks a pairing and polls it without any credential; the tenant's
 * administrators and managers approve, list, change and revoke; the screen reads its settings with its own
 * credential (plugins/app/display-devices.ts holds it to its reads).
 */
const displayRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new DisplaysRepository();
  const db = app.database.db;
  const tags = ['Écrans'];
  const manage = (refusal?: string) => ({
    ...app.guard((auth) => canManageDisplays(auth.actor), refusal === undefined ? {} : { refusal }),
  });
  const managers = manage();
  const audited = manage('gestion des écrans d’affichage réservée aux administrateurs et responsables');

  /**
   * Every tenant a display would newly show must be one where the caller manages displays (403, audited), and live
   * (400).
   */
  const checkTenants = async (request: FastifyRequest, tenantIds: readonly string[]) => {
    const auth = signedIn(request);
    const roleIn = (id: string) => auth.memberships.find((m) => m.tenantId === id)?.role ?? null;
    const refused = tenantIds.filter((id) => !canShowOnDisplay(auth.actor, roleIn(id)));
    if (refused.length > 0) {
      await app.refuse(request, 'écran montrant une organisation que l’approbateur n’administre pas');
    }
    const live = await displayCredentialRepo.tenantsIn(db, tenantIds, true);
    if (live.length !== tenantIds.length) throw invalid('tenants', MESSAGES.tenants);
  };

  const audit = (request: FastifyRequest, row: DisplayRow, action: string, description: string, extra = {}) =>
    app.audit.record(request, {
      eventType: 'configuration_change',
      description: `${description} : ${row.name}`,
      severity: action === 'display_revoked' ? 'WARNING' : 'INFO',
      extra: { action, display_id: row.id, ...extra },
    });

  app.post(
    `${BASE}pairings/`,
    {
      // Its answer carries the poll secret: never kept under an Idempotency-Key.
      config: { idempotency: false },
      schema: { tags, body: NoBody, response: replies({ 201: PairingSchema }, 400, 429) },
    },
    async (request, reply) => {
      await app.limits.hitBudget(request, 'display_pairing', {
        limit: PAIRINGS_PER_IP,
        windowMs: PAIRING_LIMIT_WINDOW_MS,
        message: MESSAGES.pairingsLimited,
      });
      return reply.code(201).send(await requestPairing(db, request.ip, new Date()));
    },
  );

  app.get(
    `${BASE}pairings/:id/`,
    {
      schema: {
        tags,
        params: PairingParams,
        headers: PairingHeaders,
        response: replies({ 200: PairingStateSchema }, 404),
      },
    },
    async (request) => {
      const state = await pollPairing(db, request.params.id, request.headers['x-display-pairing'], new Date());
      return { ...state, ...(state.display ? { display: presentDisplay(state.display) } : {}) };
    },
  );

  app.post(
    BASE,
    { ...audited, schema: { tags, body: ApproveBody, response: replies.signedIn({ 201: DisplaySchema }, 400, 429) } },
    async (request, reply) => {
      const auth = signedIn(request);
      const settings = readApproval(request.body, currentTenant(request));
      await checkTenants(request, settings.tenantIds);
      // Every attempt counts, a right code clears the count: 10 wrong codes in 10 minutes and the next is refused.
      const account = `user:${auth.user.id}`;
      await app.limits.hitBudget(
        request,
        'display_approval',
        { limit: APPROVAL_ATTEMPTS_PER_USER, windowMs: PAIRING_LIMIT_WINDOW_MS },
        account,
      );
      const view = await approvePairing(
        db,
        (fn) => request.tenantDb(fn),
        request.body.code,
        settings,
        auth.user.id,
        new Date(),
      );
      await app.limits.clear('display_approval', account);
      await audit(request, view.row, 'display_paired', 'Écran d’affichage appairé', {
        tenants: view.row.tenantIds,
        panels: view.row.panels,
      });
      return reply.code(201).send(presentDisplay(view));
    },
  );

  app.get(
    BASE,
    { ...managers, schema: { tags, response: replies.signedIn({ 200: Type.Array(DisplaySchema) }) } },
    async (request) => (await viewsOf(db, await request.tenantDb((tx) => repo.list(tx)))).map(presentDisplay),
  );

  app.get(DISPLAY_ME_PATH, { schema: { tags, response: replies({ 200: MeSchema }, 401, 403) } }, async (request) => {
    const display = request.display;
    if (!display) throw displayUnknown();
    const version = request.headers['x-vigie-version'];
    const { view, renewedToken } = await checkIn(
      db,
      display,
      { ip: request.ip, version: typeof version === 'string' && version !== '' ? version.slice(0, 40) : null },
      new Date(),
    );
    return { display: presentDisplay(view), ...(renewedToken === undefined ? {} : { renewed_token: renewedToken }) };
  });

  app.patch(
    ITEM_PATH,
    {
      ...audited,
      schema: {
        tags,
        params: DisplayParams,
        body: ChangeBody,
        response: replies.signedIn({ 200: DisplaySchema }, 400, 404, 409),
      },
    },
    async (request) => {
      const id = request.params.id.toLowerCase();
      const changes = readChange(request.body);
      const before = await request.tenantDb((tx) => repo.find(tx, id));
      if (!before) throw notFound();
      if (before.revokedAt) throw new ApiError(409, 'display_revoked', MESSAGES.revoked);
      if (changes.tenantIds)
        await checkTenants(
          request,
          changes.tenantIds.filter((t) => !before.tenantIds.includes(t)),
        );
      const row = await request.tenantDb((tx) => repo.update(tx, id, changes));
      if (!row) throw new ApiError(409, 'display_revoked', MESSAGES.revoked);
      const changed = Object.keys(changes).sort();
      if (changed.length > 0) await audit(request, row, 'display_changed', 'Écran d’affichage modifié', { changed });
      return presentDisplay(await viewOf(db, row));
    },
  );

  app.post(
    `${ITEM_PATH}revoke/`,
    {
      ...audited,
      schema: { tags, params: DisplayParams, body: NoBody, response: replies.signedIn({ 200: DisplaySchema }, 404) },
    },
    async (request) => {
      const row = await request.tenantDb((tx) => repo.revoke(tx, request.params.id.toLowerCase(), new Date()));
      if (!row) throw notFound();
      await audit(request, row, 'display_revoked', 'Écran d’affichage révoqué');
      return presentDisplay(await viewOf(db, row));
    },
  );

  app.delete(
    ITEM_PATH,
    {
      ...audited,
      schema: { tags, params: DisplayParams, response: replies.signedIn({ 204: NoContent }, 404, 409) },
    },
    async (request, reply) => {
      const id = request.params.id.toLowerCase();
      const row = await request.tenantDb(async (tx) => {
        const found = await repo.find(tx, id);
        if (!found) throw notFound();
        if (!found.revokedAt) throw new ApiError(409, 'display_active', MESSAGES.active);
        return repo.removeRevoked(tx, id);
      });
      if (!row) throw notFound();
      await audit(request, row, 'display_removed', 'Écran d’affichage retiré de la liste');
      return reply.code(204).send();
    },
  );
};

export default displayRoutes;
