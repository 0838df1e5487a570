/**
 * The keys every process on one database signs tokens and seals secrets with (issue 17, docs/SCALING.md). From the
 * environment (VIGIE_JWT_SECRET, VIGIE_ENCRYPTION_KEY, with the keys they replaced in VIGIE_JWT_PREVIOUS_SECRETS and
 * VIGIE_ENCRYPTION_PREVIOUS_KEYS), the database keeping only their fingerprints; otherwise generated once into the
 * database (an install that kept them in the data folder has them moved there). A process whose key disagrees with
 * the database refuses to start. Each key has an id: tokens name theirs in the header and sealed values in their
 * prefix, so a retired key still verifies or opens what it made.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { KeyPurpose } from '../db/schema.ts';
import { fingerprintOf, KeyRing, kidOf, type KeyEntry } from '../lib/key-ring.ts';
import { readSecretFile } from '../lib/data-dir.ts';
import { SecretBox } from '../lib/secret-box.ts';
import { REFRESH_TOKEN_TTL_S } from '../lib/tokens.ts';
import { signingKeyRepo, type SigningKeyRow } from '../repositories/signing-keys.ts';
import { resealTotpSecrets } from '../repositories/users.ts';

/** A retired signing key verifies tokens this long: the longest session lifetime a policy allows (30 days). */
export const RETIRED_ACCESS_KEY_MS = Math.max(REFRESH_TOKEN_TTL_S * 1000, 43_200 * 60_000) + 3_600_000;

/** Where one purpose's key comes from. */
export interface KeySetting {
  /** The environment variable's name, for the messages. */
  variable: string;
  /** The key the environment gives, if any. */
  secret?: string | undefined;
  /** Keys it replaced, still accepted. */
  previous?: readonly string[] | undefined;
  /** A key an older version kept in the data folder (moved into the database on first start). */
  legacy?: (() => string | undefined) | undefined;
}

export type KeySource = 'environment' | 'database';

/** The database channel a rotation is announced on: every process reloads its keys at once. */
export const KEYS_CHANNEL = 'vigie_keys';

/** A process's keys disagree with the database's: it must not start (one clear line). */
export class KeyMismatchError extends ConfigError {}

const newSecret = () => randomBytes(48).toString('base64url');

/** The key settings of a configuration: the environment's keys, else the database's (or the data folder's). */
export function keySettingsOf(config: Config): Record<KeyPurpose, KeySetting> {
  return {
    access: {
      variable: 'VIGIE_JWT_SECRET',
      secret: config.jwtSecret,
      previous: config.jwtPreviousSecrets,
      legacy: () => readSecretFile(config.dataDir, 'jwt.key'),
    },
    seal: {
      variable: 'VIGIE_ENCRYPTION_KEY',
      secret: config.encryptionKey,
      previous: config.encryptionPreviousKeys,
      legacy: () => readSecretFile(config.dataDir, 'encryption.key'),
    },
  };
}

export class KeyStore {
  readonly #rings = new Map<KeyPurpose, KeyRing>();
  #lastReload = 0;
  #reloading: Promise<void> | undefined;

  private constructor(
    private readonly db: Db,
    private readonly settings: Record<KeyPurpose, KeySetting>,
    private readonly now: () => Date,
    private readonly minReloadMs: number,
  ) {}

  /** Checks (or sets up) both purposes' keys against the database; throws KeyMismatchError on a disagreement. */
  static async open(
    db: Db,
    settings: Record<KeyPurpose, KeySetting>,
    { now = () => new Date(), minReloadMs = 5000 }: { now?: () => Date; minReloadMs?: number } = {},
  ): Promise<KeyStore> {
    const store = new KeyStore(db, settings, now, minReloadMs);
    for (const purpose of ['access', 'seal'] as const) await store.#settle(purpose);
    await store.reload();
    return store;
  }

  ring(purpose: KeyPurpose): KeyRing {
    const ring = this.#rings.get(purpose);
    if (!ring) throw new Error(`no ${purpose} keys loaded`);
    return ring;
  }

  source(purpose: KeyPurpose): KeySource {
    return this.settings[purpose].secret ? 'environment' : 'database';
  }

  /** Reads the rings again (another process rotated a key held in the database). */
  async reload(): Promise<void> {
    this.#lastReload = Date.now();
    for (const purpose of ['access', 'seal'] as const) {
      this.#rings.set(purpose, this.#ringOf(purpose, await signingKeyRepo.ofPurpose(this.db, purpose)));
    }
  }

  /** reload(), at most every few seconds: for a token naming a key this process does not know yet. */
  reloadSoon(): Promise<void> {
    if (this.#reloading) return this.#reloading;
    if (Date.now() - this.#lastReload < this.minReloadMs) return Promise.resolve();
    this.#reloading = this.reload().finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  /**
   * A new current key for `purpose`, the old one retired (still accepted). Only for keys held in the database;
   * rotating the seal key re-seals every TOTP secret with the new key in the same transaction.
   */
  async rotate(purpose: KeyPurpose): Promise<string> {
    const setting = this.settings[purpose];
    if (setting.secret) {
      throw new ConfigError(
        `the ${purpose} key comes from ${setting.variable}: rotate it there (the old value moves to its *_PREVIOUS_* list)`,
      );
    }
    await this.reload();
    const secret = newSecret();
    const next = { kid: kidOf(secret), secret, fingerprint: fingerprintOf(secret) };
    const old = this.ring(purpose);
    const reseal =
      purpose === 'seal'
        ? async (tx: Db) => {
            const box = new SecretBox(new KeyRing(next, old.all()));
            await resealTotpSecrets(tx, (sealed) => box.seal(box.open(sealed)));
          }
        : undefined;
    await signingKeyRepo.replaceCurrent(this.db, purpose, next, this.now(), reseal);
    await this.reload();
    return next.kid;
  }

  /** The purpose's current key in the database agrees with this process's setting, or is made so. */
  async #settle(purpose: KeyPurpose): Promise<void> {
    const setting = this.settings[purpose];
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows = await signingKeyRepo.ofPurpose(this.db, purpose);
      const current = rows.find((r) => r.retiredAt === null);
      if (setting.secret) {
        const mine = fingerprintOf(setting.secret);
        if (current?.fingerprint === mine) return;
        if (!current) {
          await signingKeyRepo.addCurrent(this.db, {
            kid: kidOf(setting.secret),
            purpose,
            secret: null,
            fingerprint: mine,
          });
          continue;
        }
        const previous = new Set((setting.previous ?? []).map(fingerprintOf));
        const retiredMine = rows.some((r) => r.fingerprint === mine);
        if (previous.has(current.fingerprint) && !retiredMine) {
          // This process holds the key that replaced the database's: it rotates the database to it.
          await signingKeyRepo.replaceCurrent(
            this.db,
            purpose,
            { kid: kidOf(setting.secret), secret: null, fingerprint: mine },
            this.now(),
          );
          return;
        }
        throw new KeyMismatchError(
          retiredMine
            ? `${setting.variable} is a key this database has retired (current key id ${current.kid}); give every process the current key`
            : current.secret !== null
              ? `${setting.variable} differs from the key this database generated (key id ${current.kid}); start this process without ${setting.variable}, as the others`
              : `${setting.variable} differs from the key the other processes on this database use (key id ${current.kid}); give every process the same ${setting.variable}`,
        );
      }
      if (current?.secret) return;
      if (current) {
        throw new KeyMismatchError(
          `the other processes on this database take the ${purpose === 'access' ? 'signing' : 'encryption'} key from ${setting.variable} (key id ${current.kid}); set the same ${setting.variable} here`,
        );
      }
      const secret = setting.legacy?.() ?? newSecret();
      await signingKeyRepo.addCurrent(this.db, {
        kid: kidOf(secret),
        purpose,
        secret,
        fingerprint: fingerprintOf(secret),
      });
    }
    throw new KeyMismatchError(`cannot settle the ${purpose} key with the database; try again`);
  }

  #ringOf(purpose: KeyPurpose, rows: readonly SigningKeyRow[]): KeyRing {
    const setting = this.settings[purpose];
    if (setting.secret) {
      const previous = (setting.previous ?? []).map((secret) => ({ kid: kidOf(secret), secret }));
      return new KeyRing({ kid: kidOf(setting.secret), secret: setting.secret }, previous);
    }
    const now = this.now().getTime();
    const held = (r: SigningKeyRow): r is SigningKeyRow & { secret: string } => r.secret !== null;
    const current = rows.find((r) => r.retiredAt === null && held(r));
    if (!current || !held(current)) throw new KeyMismatchError(`no ${purpose} key in the database`);
    const accepted: KeyEntry[] = rows
      .filter(held)
      .filter((r) => r !== current)
      // A retired signing key verifies what it signed until that has expired; sealed data has no expiry.
      .filter(
        (r) => purpose === 'seal' || (r.retiredAt !== null && now - r.retiredAt.getTime() < RETIRED_ACCESS_KEY_MS),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((r) => ({ kid: r.kid, secret: r.secret }));
    return new KeyRing({ kid: current.kid, secret: current.secret }, accepted);
  }
}
