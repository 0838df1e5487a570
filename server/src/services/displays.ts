/**
 * Wall screens (issue 22, docs/displays.md): a screen asks a pairing, an administrator or a manager approves its
 * code, the screen collects its credential once; then it checks in, and its credential is renewed there.
 * Pairings and credentials are platform rows (the owner connection); displays are their tenant's (`inTenant`).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { CREDENTIAL_RENEWAL_MS, PAIRING_TTL_MS, RENEWAL_GRACE_MS } from '../domain/displays.ts';
import { ApiError } from '../domain/errors.ts';
import { digestOf, newPairingCode, newSecret, normalPairingCode } from '../lib/one-time-codes.ts';
import {
  displayCredentialRepo,
  displayPairingRepo,
  DisplaysRepository,
  type DisplayRow,
  type DisplaySettings,
  type DisplayView,
} from '../repositories/displays.ts';
import { invalid } from '../schemas/fields.ts';
import { MESSAGES } from '../schemas/displays.ts';

const displays = new DisplaysRepository();

/** A device credential: `vgd_` and 43 base64url characters. */
export const DISPLAY_TOKEN_PREFIX = 'vgd_';
/** Pairings are forgotten a day after they expired. */
const PAIRINGS_KEPT_MS = 24 * 3600_000;

/** Runs `fn` in the caller's tenant transaction (request.tenantDb). */
export type InTenant = <T>(fn: (tx: TenantDb) => Promise<T>) => Promise<T>;

const sameDigest = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The displays with the names they show: their tenants' and their approvers' (platform rows). */
export async function viewsOf(db: Db, rows: readonly DisplayRow[]): Promise<DisplayView[]> {
  const tenantIds = [...new Set(rows.flatMap((r) => r.tenantIds))];
  const userIds = [...new Set(rows.flatMap((r) => (r.createdBy === null ? [] : [r.createdBy])))];
  const tenants = await displayCredentialRepo.tenantsIn(db, tenantIds, false);
  const usernames = await displayCredentialRepo.usernames(db, userIds);
  return rows.map((row) => ({
    row,
    tenants: row.tenantIds.flatMap((id) => tenants.filter((t) => t.id === id)),
    createdBy: row.createdBy === null ? null : (usernames.get(row.createdBy) ?? null),
  }));
}

export async function viewOf(db: Db, row: DisplayRow): Promise<DisplayView> {
  return (await viewsOf(db, [row]))[0]!;
}

/** A new pairing for the screen at `ip`: its code shown in large type, and the secret it polls with. */
export async function requestPairing(db: Db, ip: string, now: Date) {
  await displayPairingRepo.purge(db, new Date(now.getTime() - PAIRINGS_KEPT_MS));
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  const pollSecret = newSecret();
  // Two live codes alike are unlikely (31^8); a collision draws again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = newPairingCode();
    const row = await displayPairingRepo.create(db, {
      codeHash: digestOf(normalPairingCode(code)!),
      pollSecretHash: digestOf(pollSecret),
      createdIp: ip,
      createdAt: now,
      expiresAt,
    });
    if (row) return { id: row.id, code, poll_secret: pollSecret, expires_at: expiresAt.toISOString() };
  }
  throw new Error('no free pairing code after 5 draws');
}

export type PairingStatus = 'pending' | 'approved' | 'expired' | 'consumed';

/** What a screen polling its pairing learns: the credential, once, when it was approved. */
export interface PairingState {
  status: PairingStatus;
  expires_at: string;
  token?: string;
  display?: DisplayView;
}

const unknownPairing = () => new ApiError(404, 'not_found', 'Appairage introuvable.');

/** A pairing as its screen sees it; 404 for an unknown id or a wrong secret alike. */
export async function pollPairing(db: Db, id: string, secret: string | undefined, now: Date): Promise<PairingState> {
  const row = await displayPairingRepo.find(db, id);
  if (!row || secret === undefined || !sameDigest(digestOf(secret), row.pollSecretHash)) throw unknownPairing();
  const expires_at = row.expiresAt.toISOString();
  if (row.consumedAt) return { status: 'consumed', expires_at };
  if (row.displayId) {
    const displayId = await displayPairingRepo.collect(db, id, now);
    if (!displayId) return { status: 'consumed', expires_at };
    const token = newSecret(DISPLAY_TOKEN_PREFIX);
    const display = await displayCredentialRepo.issue(db, displayId, digestOf(token), now);
    // Revoked before it was collected: nothing to hand over.
    if (!display) return { status: 'expired', expires_at };
    return { status: 'approved', expires_at, token, display: await viewOf(db, display) };
  }
  // Claimed by an approver a moment ago, the display not written yet: still pending.
  if (row.approvedAt) return { status: 'pending', expires_at };
  return { status: row.expiresAt <= now ? 'expired' : 'pending', expires_at };
}

/**
 * The display of an approved code, written in the approver's tenant. An unknown, expired, used or malformed code is
 * the same 400: the answer tells nothing about which codes exist.
 */
export async function approvePairing(
  db: Db,
  inTenant: InTenant,
  typedCode: string,
  settings: DisplaySettings,
  userId: number,
  now: Date,
): Promise<DisplayView> {
  const code = normalPairingCode(typedCode);
  const pairingId = code === undefined ? undefined : await displayPairingRepo.claim(db, digestOf(code), now);
  if (pairingId === undefined) throw invalid('code', MESSAGES.code);
  let row: DisplayRow;
  try {
    row = await inTenant((tx) => displays.create(tx, settings, userId));
  } catch (err) {
    await displayPairingRepo.release(db, pairingId);
    throw err;
  }
  await displayPairingRepo.link(db, pairingId, row.id);
  return viewOf(db, row);
}

/** A display's check-in: seen now, from `ip` with `version`; a credential due for renewal comes back renewed. */
export async function checkIn(
  db: Db,
  display: { id: string; credential: { digest: string; viaPrevious: boolean; issuedAt: Date | null } },
  seen: { ip: string; version: string | null },
  now: Date,
): Promise<{ view: DisplayView; renewedToken?: string }> {
  const { digest, viaPrevious, issuedAt } = display.credential;
  // Presented as the replaced credential, the renewed one never arrived: renewed again.
  const due = viaPrevious || issuedAt === null || now.getTime() - issuedAt.getTime() >= CREDENTIAL_RENEWAL_MS;
  let renewedToken: string | undefined;
  if (due) {
    const token = newSecret(DISPLAY_TOKEN_PREFIX);
    const grace = new Date(now.getTime() + RENEWAL_GRACE_MS);
    if (await displayCredentialRepo.renew(db, display.id, digest, digestOf(token), now, grace)) renewedToken = token;
  }
  const row = await displayCredentialRepo.seen(db, display.id, { at: now, ...seen });
  if (!row) throw new ApiError(404, 'not_found', 'Ressource introuvable.');
  return { view: await viewOf(db, row), ...(renewedToken === undefined ? {} : { renewedToken }) };
}
