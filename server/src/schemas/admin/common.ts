/** What the administration schemas (admin/, security/, system/) share beyond ../common.ts. */
import { Type } from '../common.ts';

import { UUID_PATTERN } from '../../lib/uuid.ts';

// A path segment that is not a UUID is not found.
export { UUID_PATTERN, isUuid } from '../../lib/uuid.ts';

/** `/:id` of a platform row named by a UUID (a tenant, a backup). */
export const UuidParams = (description: string) =>
  Type.Object({ id: Type.String({ pattern: UUID_PATTERN, description }) });

/** A settings-like PATCH body: an object whose every key the service checks, with its French messages. */
export const keyedBody = (description: string, notObject: string) =>
  Type.Record(Type.String(), Type.Unknown(), { description, errorMessage: notObject });

/** Trims and lowercases the domain part of an address (the local part is the mailbox owner's business). */
export function normaliseEmail(raw: string): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}

// Deliberately loose: one @, no spaces, a dot in the domain. Deliverability is the mail server's job.
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `subscriptionPlan` → `subscription_plan`: the API's name of a changed column, for the audit lines. */
export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
