import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { canChangeSecurityPolicies, canReadSecurityPolicies } from '../../../policies/index.ts';
import { SecurityPolicySchema } from '../../../presenters/security-policy.ts';
import { keyedBody } from '../../../schemas/admin/common.ts';
import { replies } from '../../../schemas/common.ts';
import { policyChanges, presentSecurityPolicy, validatePolicyPatch } from '../../../services/security-policies.ts';

const PATH = '/api/security/policies';
// Platform settings: no tenant needed; the refusal's audit line is a sentence of its own.
const GUARD = { refusal: { audit: 'Accès refusé aux politiques de sécurité' }, tenant: false };

/** GET and PATCH /api/security/policies, with or without the trailing slash (docs/api-admin.md). */
const securityPolicyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Politiques de sécurité'];

  // The router ignores a trailing slash, so this one path answers both spellings.
  app.get(
    PATH,
    {
      ...app.guard((auth) => canReadSecurityPolicies(auth.actor), GUARD),
      schema: { tags, response: replies.signedIn({ 200: SecurityPolicySchema }) },
    },
    async () => presentSecurityPolicy(await app.securityPolicies.get()),
  );

  app.patch(
    PATH,
    {
      ...app.guard((auth) => canChangeSecurityPolicies(auth.actor), GUARD),
      schema: {
        tags,
        // Each key is checked by validatePolicyPatch, with its French message (updated_at is ignored).
        body: keyedBody('Les politiques à changer, par clé', 'Un objet JSON de politiques est attendu.'),
        response: replies.signedIn({ 200: SecurityPolicySchema }, 400),
      },
    },
    async (request) => {
      const { before, after } = await app.securityPolicies.update(validatePolicyPatch(request.body));
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
    },
  );
};

export default securityPolicyRoutes;
