import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { canAdministerModels } from '../../../policies/index.ts';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import { TriageSettingsRepository } from '../../../repositories/triage-settings.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { Nullable, replies, Type } from '../../../schemas/common.ts';
import { accessGuards } from '../shared.ts';

const MAX_SLA_DAYS = 3650;
const SLA_MESSAGE = `Délai invalide : un nombre entier de jours entre 1 et ${MAX_SLA_DAYS}, ou vide pour aucun délai.`;
const days = Nullable(
  Type.Integer({
    minimum: 1,
    maximum: MAX_SLA_DAYS,
    errorMessage: { type: SLA_MESSAGE, minimum: SLA_MESSAGE, maximum: SLA_MESSAGE },
  }),
);
const EPSS_MESSAGE = 'Seuil EPSS invalide : une probabilité supérieure à 0 et au plus 1 est attendue (0,1 pour 10 %).';
/** The EPSS probability from which SSVC takes a public exploit as likely (docs/ssvc.md). */
const epssThreshold = Type.Number({
  exclusiveMinimum: 0,
  maximum: 1,
  description: 'Probabilité EPSS à partir de laquelle SSVC tient un exploit pour probable (défaut 0,1)',
  errorMessage: { type: EPSS_MESSAGE, exclusiveMinimum: EPSS_MESSAGE, maximum: EPSS_MESSAGE },
});
const slaDays = { critical: days, high: days, medium: days, low: days, info: days };
const SlaSchema = Type.Object(
  { ...slaDays, unrated: days, epss_threshold: epssThreshold },
  { additionalProperties: false, title: 'Sla' },
);
/** The SLA, and the « Non évaluée » days and the EPSS threshold when they change (left out, they stay). */
const SlaBody = Type.Object(
  { ...slaDays, unrated: Type.Optional(days), epss_threshold: Type.Optional(epssThreshold) },
  { additionalProperties: false, title: 'SlaInput' },
);

const SlaReportSchema = Type.Object(
  {
    open_with_due_date: Type.Integer(),
    overdue: Type.Integer(),
    due_soon: Type.Integer(),
    resolved_in_window: Type.Integer(),
    resolved_on_time: Type.Integer(),
    window_days: Type.Integer(),
    generated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SlaReport' },
);

/**
 * The tenant's SLA per severity and EPSS threshold (issue 21): read by its members, set by its administrators; new
 * open findings take their due date from the SLA, every open finding's SSVC decision reads the threshold. And the
 * SLA report of the dashboard.
 */
const triageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new TriageSettingsRepository();
  const settings = async (tx: TenantDb) => ({ ...(await repo.sla(tx)), epss_threshold: await repo.epssThreshold(tx) });
  const tags = ['Vulnérabilités — traitement'];
  const { read } = accessGuards(app);
  const { write: administer } = accessGuards(app, {
    may: canAdministerModels,
    refusal: 'délais de traitement réservés aux administrateurs',
  });

  app.get(
    '/api/vulnerabilities/sla/',
    { ...read, schema: { tags, response: replies.signedIn({ 200: SlaSchema }) } },
    async (request) => request.tenantDb(settings),
  );

  app.put(
    '/api/vulnerabilities/sla/',
    { ...administer, schema: { tags, body: SlaBody, response: replies.signedIn({ 200: SlaSchema }, 400) } },
    async (request) => {
      const userId = signedIn(request).actor.userId;
      const { epss_threshold: threshold, ...sla } = request.body;
      const saved = await request.tenantDb(async (tx) => {
        await repo.saveSla(tx, sla, userId, threshold);
        return settings(tx);
      });
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: 'Délais de traitement des vulnérabilités modifiés',
        extra: { sla: saved },
      });
      return saved;
    },
  );

  app.get(
    '/api/vulnerabilities/sla-report/',
    { ...read, schema: { tags, response: replies.signedIn({ 200: SlaReportSchema }) } },
    async (request, reply) => {
      const today = todayUtc();
      const key = `sla-report|${currentTenant(request)}|${today}`;
      return reply.cachedAnswer(key, false, async (tx) => ({
        ...(await repo.report(tx, today)),
        generated_at: new Date().toISOString(),
      }));
    },
  );
};

export default triageRoutes;
