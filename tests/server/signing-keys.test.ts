import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { eq, isNotNull } from 'drizzle-orm';
import { loadConfig } from '../../server/src/config.ts';
import { signingKeys, users } from '../../server/src/db/schema.ts';
import type { Database } from '../../server/src/db/client.ts';
import { KeyRing } from '../../server/src/lib/key-ring.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import {
  KeyMismatchError,
  KeyStore,
  keySettingsOf,
  RETIRED_ACCESS_KEY_MS,
  type KeySetting,
} from '../../server/src/services/signing-keys.ts';
import { freshDatabase } from './helpers.ts';
import { backend } from './support/app.ts';

const CLAIMS = { sub: '7', username: 'analyste', is_staff: false, is_superuser: false };

function settings(access: Partial<KeySetting> = {}, seal: Partial<KeySetting> = {}) {
  return {
    access: { variable: 'VIGIE_JWT_SECRET', ...access },
    seal: { variable: 'VIGIE_ENCRYPTION_KEY', ...seal },
  };
}

/** What one process makes of the store: its token service and its box, reading the store's rings. */
function processOf(keys: KeyStore) {
  return {
    tokens: new TokenService(
      () => keys.ring('access'),
      () => keys.reloadSoon(),
    ),
    box: new SecretBox(() => keys.ring('seal')),
  };
}

describe(`signing and sealing keys shared through the database (${backend})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  const dirs: string[] = [];

  beforeEach(async () => {
    await drop?.();
    ({ database, drop } = await freshDatabase());
  });
  afterAll(async () => {
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('generates each key once into the database: a second process, or a restart, signs and verifies with it', async () => {
    const a = processOf(await KeyStore.open(database.db, settings()));
    const b = processOf(await KeyStore.open(database.db, settings()));
    const token = await a.tokens.signAccess(CLAIMS);
    expect(await b.tokens.verifyAccess(token)).toMatchObject({ sub: '7', username: 'analyste' });
    expect(b.box.open(a.box.seal('JBSWY3DPEHPK3PXP'))).toBe('JBSWY3DPEHPK3PXP');
    const rows = await database.db.select().from(signingKeys);
    expect(rows.map((r) => r.purpose).sort()).toEqual(['access', 'seal']);
    for (const row of rows) expect(row.secret!.length).toBeGreaterThanOrEqual(64);
  });

  it('moves the keys an older version kept in the data folder into the database: its tokens and secrets stay valid', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigie-keys-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'secrets'));
    const oldJwt = 'an-old-jwt-secret-from-the-data-folder-0123456789abcdef';
    const oldSeal = 'an-old-encryption-key-from-the-data-folder';
    writeFileSync(path.join(dir, 'secrets', 'jwt.key'), `${oldJwt}\n`);
    writeFileSync(path.join(dir, 'secrets', 'encryption.key'), `${oldSeal}\n`);
    // What the previous version made: tokens without a key id, secrets sealed as v1.
    const resigned = legacyToken(await new TokenService(oldJwt).signAccess(CLAIMS), oldJwt);
    expect(headerOf(resigned)).toEqual({ alg: 'HS256', typ: 'JWT' });

    const keys = await KeyStore.open(database.db, keySettingsOf({ ...loadConfig({}), dataDir: dir }));
    const now = processOf(keys);
    expect(await now.tokens.verifyAccess(resigned)).toMatchObject({ sub: '7' });
    expect(now.box.open(sealV1(oldSeal, 'OLDSECRET'))).toBe('OLDSECRET');
    expect(keys.ring('access').current.secret).toBe(oldJwt);
  });

  it('keeps only fingerprints of keys given by the environment, and refuses a process whose key differs', async () => {
    const env = settings({ secret: 'env-jwt-secret-number-one-0123456789abcdef' }, { secret: 'env-seal-one' });
    const a = processOf(await KeyStore.open(database.db, env));
    const b = processOf(await KeyStore.open(database.db, env));
    expect(await b.tokens.verifyAccess(await a.tokens.signAccess(CLAIMS))).toMatchObject({ sub: '7' });
    const rows = await database.db.select().from(signingKeys);
    expect(rows.every((r) => r.secret === null && /^[0-9a-f]{64}$/.test(r.fingerprint))).toBe(true);

    const other = settings({ secret: 'another-jwt-secret-0123456789abcdef0123' }, { secret: 'env-seal-one' });
    const refused = await KeyStore.open(database.db, other).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KeyMismatchError);
    expect((refused as Error).message).toMatch(
      /^VIGIE_JWT_SECRET differs from the key the other processes on this database use \(key id k[0-9a-f]{16}\); give every process the same VIGIE_JWT_SECRET$/,
    );
    expect((refused as Error).message).not.toContain('another-jwt-secret');
    // Nor may a process without the key join processes that have one.
    const bare = await KeyStore.open(database.db, settings()).catch((e: unknown) => e);
    expect((bare as Error).message).toMatch(
      /take the signing key from VIGIE_JWT_SECRET .*set the same VIGIE_JWT_SECRET here/,
    );
  });

  it('rotates an environment key: the new process retires the old key, which still verifies; a stale process is refused', async () => {
    const one = 'env-jwt-secret-number-one-0123456789abcdef';
    const two = 'env-jwt-secret-number-two-0123456789abcdef';
    const before = processOf(await KeyStore.open(database.db, settings({ secret: one })));
    const oldToken = await before.tokens.signAccess(CLAIMS);
    const after = processOf(await KeyStore.open(database.db, settings({ secret: two, previous: [one] })));
    expect(await after.tokens.verifyAccess(oldToken)).toMatchObject({ sub: '7' });
    const refused = await KeyStore.open(database.db, settings({ secret: one })).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/^VIGIE_JWT_SECRET is a key this database has retired/);
  });

  it('rotates a database key: new tokens name the new key, other processes learn it, old tokens still verify until their time is up', async () => {
    let clock = new Date('2026-11-28T10:00:00Z');
    const a = await KeyStore.open(database.db, settings(), { now: () => clock, minReloadMs: 0 });
    const b = await KeyStore.open(database.db, settings(), { now: () => clock, minReloadMs: 0 });
    const pa = processOf(a);
    const pb = processOf(b);
    const oldToken = await pa.tokens.signAccess(CLAIMS, 10 * 24 * 3600);
    const oldKid = a.ring('access').current.kid;

    const newKid = await a.rotate('access');
    expect(newKid).not.toBe(oldKid);
    const newToken = await pa.tokens.signAccess(CLAIMS);
    expect(JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString())).toMatchObject({ kid: newKid });
    // b has not reloaded: an unknown key id makes it read the keys again.
    expect(await pb.tokens.verifyAccess(newToken)).toMatchObject({ sub: '7' });
    expect(await pb.tokens.verifyAccess(oldToken)).toMatchObject({ sub: '7' });

    clock = new Date(clock.getTime() + RETIRED_ACCESS_KEY_MS + 1000);
    await b.reload();
    await expect(pb.tokens.verifyAccess(oldToken)).rejects.toThrow('unknown signing key');
  });

  it('rotating the sealing key re-seals every TOTP secret with it in one transaction', async () => {
    const keys = await KeyStore.open(database.db, settings());
    const { box } = processOf(keys);
    const [someone] = await database.db.select({ id: users.id }).from(users).limit(1);
    await database.db
      .update(users)
      .set({ totpSecret: box.seal('JBSWY3DPEHPK3PXP') })
      .where(eq(users.id, someone!.id));
    const newKid = await keys.rotate('seal');
    const sealed = await database.db.select({ s: users.totpSecret }).from(users).where(isNotNull(users.totpSecret));
    expect(sealed).toHaveLength(1);
    expect(sealed[0]!.s!.split('.')[1]).toBe(newKid);
    expect(box.open(sealed[0]!.s!)).toBe('JBSWY3DPEHPK3PXP');
  });
});

/** `token` as the previous version signed it: HS256 with no key id in its header. */
function legacyToken(token: string, secret: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const unsigned = `${header}.${token.split('.')[1]}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

const headerOf = (token: string): unknown => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());

/** A secret as the previous version sealed it: v1.<iv>.<tag>.<data>. */
function sealV1(key: string, plain: string): string {
  const sealed = new SecretBox(new KeyRing({ kid: 'x', secret: key })).seal(plain).split('.');
  return ['v1', ...sealed.slice(2)].join('.');
}
