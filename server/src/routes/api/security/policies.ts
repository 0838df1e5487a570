import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canChangeSecurityPolicies, canReadSecurityPolicies, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { policyChanges, presentSecurityPolicy, validatePolicyPatch } from '../../../services/security-policies.ts';

const PATH = '/api/security/policies';

/** GET and PATCH /api/security/policies, with or without the trailing slash (docs/api-admin.md). */
const securityPolicyRoutes: FastifyPluginAsync = async (app) => {
  const refuse = async (request: FastifyRequest): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé aux politiques de sécurité',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: PATH },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  // The router ignores a trailing slash, so this one path answers both spellings.
  app.get(PATH, { preValidation: [app.authenticate] }, async (request) => {
    if (!canReadSecurityPolicies(request.auth!.actor)) await refuse(request);
    return presentSecurityPolicy(await app.securityPolicies.get());
  });

  app.patch(PATH, { preValidation: [app.authenticate] }, async (request) => {
    if (!canChangeSecurityPolicies(request.auth!.actor)) await refuse(request);
    const patch = validatePolicyPatch(request.body);
    const { before, after } = await app.securityPolicies.update(patch);
    const changes = policyChanges(before, after);
    if (Object.keys(changes).length > 0) {
      // Security settings deserve a reviewer's eye whichever way they move.
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Politiques de sécurité modifiées : ${Object.keys(changes).join(', ')}`,
        severity: 'WARNING',
        tenantId: null,
        extra: { changes },
      });
    }
    return presentSecurityPolicy(after);
  });
};

export default securityPolicyRoutes;
