import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canWriteBlog } from '../../../policies/index.ts';
import { accessGuards } from '../shared.ts';

const REFUSAL = 'le blog est rédigé par les administrateurs et responsables';

/**
 * The blog's route options (docs/api-blog.md "Who may do what"): readers are every member, staff and superusers;
 * writers are tenant admins and managers, staff and superusers. A refused writer is audited before its body is
 * even looked at.
 */
export function blogGuards(app: FastifyInstance) {
  return {
    ...accessGuards(app, { may: canWriteBlog, refusal: REFUSAL }),
    /** For a read that asks for writers' data (drafts). */
    deny: (request: FastifyRequest) => app.authorize(request, false, REFUSAL),
  };
}
