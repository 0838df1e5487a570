import type { FastifyPluginAsync } from 'fastify';
import { DEFAULT_HEAVY_PER_TENANT, DEFAULT_MAX_IN_FLIGHT } from './config.ts';
import type { Database } from './db/client.ts';
import type { ProcessRole } from './db/schema.ts';
import type { TokenService } from './lib/tokens.ts';
import type { SecretBox } from './lib/secret-box.ts';
import audit from './plugins/app/audit.ts';
import rateLimits from './plugins/app/rate-limits.ts';
import idempotency from './plugins/app/idempotency.ts';
import answerCache from './plugins/app/answer-cache.ts';
import tenantBudget, { ConcurrencyBudget } from './plugins/app/tenant-budget.ts';
import requestGate, { RequestGate } from './plugins/app/request-gate.ts';
import type { KeptSignIn, KeptSignInMode } from './services/kept-sign-in.ts';
import databasePlugin from './plugins/external/database.ts';
import securityHeaders from './plugins/external/security-headers.ts';
import staticApp from './plugins/external/static-app.ts';
import compression from './plugins/external/compression.ts';
import errors from './plugins/app/errors.ts';
import inputGuard from './plugins/app/input-guard.ts';
import authentication from './plugins/app/authentication.ts';
import authorization from './plugins/app/authorization.ts';
import displayDevices from './plugins/app/display-devices.ts';
import openapi from './plugins/app/openapi.ts';
import healthRoutes from './routes/api/health/index.ts';
import tokenRoutes from './routes/api/token/index.ts';
import userRoutes from './routes/api/users/index.ts';
import accountRoutes from './routes/api/accounts/index.ts';
import adminUserRoutes from './routes/api/admin/users/index.ts';
import auditEventRoutes from './routes/api/audit/events.ts';
import auditResultRoutes from './routes/api/audit/results.ts';
import jobs from './plugins/app/jobs.ts';
import { TASKS } from './tasks/index.ts';
import type { TaskDefinition } from './tasks/types.ts';
import vulnerabilityRoutes from './routes/api/vulnerabilities/index.ts';
import cveRoutes from './routes/api/vulnerabilities/cves.ts';
import scanRoutes from './routes/api/vulnerabilities/scans.ts';
import triageRoutes from './routes/api/vulnerabilities/triage.ts';
import assetRoutes from './routes/api/assets/index.ts';
import threatRoutes from './routes/api/threats/index.ts';
import celeryRoutes from './routes/api/celery/index.ts';
import dashboardRoutes from './routes/api/dashboard/index.ts';
import projectsArea from './routes/api/projects/index.ts';
import notificationsArea from './routes/api/notifications/index.ts';
import blogArea from './routes/api/blog/index.ts';
import systemSettingsPlugin from './plugins/app/system-settings.ts';
import systemSettingsRoutes from './routes/api/system/settings.ts';
import securityPoliciesPlugin from './plugins/app/security-policies.ts';
import securityPolicyRoutes from './routes/api/security/policies.ts';
import adminTenantRoutes from './routes/api/admin/tenants/index.ts';
import serverLogsPlugin from './plugins/app/server-logs.ts';
import adminLogRoutes from './routes/api/admin/logs/index.ts';
import adminStatusRoutes from './routes/api/admin/status/index.ts';
import adminConfigRoutes from './routes/api/admin/config/index.ts';
import adminBackupRoutes from './routes/api/admin/backups/index.ts';
import adminModelRoutes from './routes/api/admin/models/index.ts';
import displayRoutes from './routes/api/displays/index.ts';

export interface AppOptions {
  database: Database;
  tokens: TokenService;
  /** Encrypts secrets at rest (TOTP seeds). */
  secretBox: SecretBox;
  staticDir: string;
  /** Writable directory for files the app keeps (scanner reports): the data dir, or a temp dir in tests. */
  filesDir: string;
  /** Background tasks known to the job queue (default: every product task). */
  tasks?: readonly TaskDefinition[];
  /** Run job workers and schedules in this process (default true); false leaves jobs queued. */
  runJobs?: boolean;
  /** This process's role in the registry of processes (default: 'all' with job workers, 'web' without). */
  role?: ProcessRole;
  /** Heavy requests (exports, uploads) one tenant may run at once (default DEFAULT_HEAVY_PER_TENANT). */
  heavyPerTenant?: number;
  /** The budget itself, when the caller wants a handle on it (tests); else one of heavyPerTenant. */
  heavyBudget?: ConcurrencyBudget;
  /** When a request's signed-in state may come from memory (default 'busy'), or the keeper itself (tests). */
  keptSignIn?: KeptSignInMode | KeptSignIn;
  /** API requests served at once (default DEFAULT_MAX_IN_FLIGHT), or the gate itself (tests). */
  maxInFlight?: number | RequestGate;
}

declare module 'fastify' {
  interface FastifyInstance {
    secretBox: SecretBox;
    filesDir: string;
  }
}

/** The whole application as one plugin, so tests and the server build it the same way. */
const app: FastifyPluginAsync<AppOptions> = async (fastify, opts) => {
  await fastify.register(errors);
  await fastify.register(inputGuard);
  await fastify.register(securityHeaders);
  await fastify.register(compression);
  const gate = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  await fastify.register(requestGate, { gate: typeof gate === 'number' ? new RequestGate(gate) : gate });
  // Before any route: the document is built from the routes as they register.
  await fastify.register(openapi);
  await fastify.register(databasePlugin, { database: opts.database });
  fastify.decorate('secretBox', opts.secretBox);
  fastify.decorate('filesDir', opts.filesDir);
  await fastify.register(audit);
  await fastify.register(authentication, { tokens: opts.tokens, keptSignIn: opts.keptSignIn ?? 'busy' });
  // Right after authentication: a wall screen's credential is held to its reads before any other route hook.
  await fastify.register(displayDevices);
  await fastify.register(authorization);
  await fastify.register(rateLimits);
  await fastify.register(securityPoliciesPlugin);
  await fastify.register(systemSettingsPlugin);
  await fastify.register(serverLogsPlugin);
  await fastify.register(idempotency);
  await fastify.register(answerCache);
  await fastify.register(tenantBudget, {
    budget: opts.heavyBudget ?? new ConcurrencyBudget(opts.heavyPerTenant ?? DEFAULT_HEAVY_PER_TENANT),
  });
  await fastify.register(jobs, {
    tasks: opts.tasks ?? TASKS,
    runJobs: opts.runJobs ?? true,
    ...(opts.role ? { role: opts.role } : {}),
  });

  // Every /api answer is no-store unless its route decides otherwise (the service worker keeps its own cache).
  fastify.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/') && !reply.hasHeader('Cache-Control')) {
      reply.header('Cache-Control', 'no-store');
    }
  });

  await fastify.register(healthRoutes);
  await fastify.register(tokenRoutes);
  await fastify.register(userRoutes);
  await fastify.register(accountRoutes);
  await fastify.register(adminUserRoutes);
  await fastify.register(auditEventRoutes);
  await fastify.register(auditResultRoutes);
  await fastify.register(vulnerabilityRoutes);
  await fastify.register(cveRoutes);
  await fastify.register(scanRoutes);
  await fastify.register(triageRoutes);
  await fastify.register(assetRoutes);
  await fastify.register(threatRoutes);
  await fastify.register(celeryRoutes);
  await fastify.register(dashboardRoutes);
  await fastify.register(projectsArea);
  await fastify.register(notificationsArea);
  await fastify.register(blogArea);
  await fastify.register(systemSettingsRoutes);
  await fastify.register(securityPolicyRoutes);
  await fastify.register(adminTenantRoutes);
  await fastify.register(adminLogRoutes);
  await fastify.register(adminStatusRoutes, { runJobs: opts.runJobs ?? true });
  await fastify.register(adminConfigRoutes, { runJobs: opts.runJobs ?? true });
  await fastify.register(adminBackupRoutes);
  await fastify.register(adminModelRoutes);
  await fastify.register(displayRoutes);
  await fastify.register(staticApp, { staticDir: opts.staticDir });
};

export default app;
