import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../server/src/lib/data-dir.ts';
import { hashPassword, verifyPassword } from '../../server/src/lib/password.ts';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('data directory', () => {
  it('takes over a stale lock left by a dead process', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigie-lock-'));
    writeFileSync(path.join(dir, 'vigie.lock'), '999999999');
    const unlock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, 'vigie.lock'), 'utf8')).toBe(String(process.pid));
    unlock();
  });
});

describe('password hashing', () => {
  it('verifies the right password only, with a salted scrypt hash', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigie-pw-'));
    const h1 = await hashPassword('s3cret-passphrase');
    const h2 = await hashPassword('s3cret-passphrase');
    expect(h1).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('s3cret-passphrase', h1)).toBe(true);
    expect(await verifyPassword('s3cret-passphrasE', h1)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});
