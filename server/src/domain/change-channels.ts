/**
 * Channels on which the database itself announces changes as they commit (migration 0023), heard by every process:
 * a user's id (comma-separated ids, or '*' for everybody) when their signed-in state changed, and each tenant's new
 * data version as `tenant:version` pairs ('*': forget them all).
 */
export const SIGNED_IN_CHANNEL = 'vigie_signed_in';
export const WRITES_CHANNEL = 'vigie_writes';
/** A user's id (comma-separated ids, or '*') when one of their notifications was written, read or deleted. */
export const INBOX_CHANNEL = 'vigie_inbox';
