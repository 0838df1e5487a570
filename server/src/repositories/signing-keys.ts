import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { signingKeys, type KeyPurpose } from '../db/schema.ts';

export type SigningKeyRow = typeof signingKeys.$inferSelect;

/** The signing_keys table (platform data, owner connection). */
export const signingKeyRepo = {
  async ofPurpose(db: Db, purpose: KeyPurpose): Promise<SigningKeyRow[]> {
    return db.select().from(signingKeys).where(eq(signingKeys.purpose, purpose));
  },

  /** Adds `key` as the purpose's current key unless another process made one first (then nothing happens). */
  async addCurrent(db: Db, key: { kid: string; purpose: KeyPurpose; secret: string | null; fingerprint: string }) {
    await db.insert(signingKeys).values(key).onConflictDoNothing();
  },

  /** Retires the purpose's current key and makes `next` current, in one transaction. */
  async replaceCurrent(
    db: Db,
    purpose: KeyPurpose,
    next: { kid: string; secret: string | null; fingerprint: string },
    now: Date,
    alongside?: (tx: Db) => Promise<void>,
  ): Promise<void> {
    await db.transaction(async (tx) => {
      await tx
        .update(signingKeys)
        .set({ retiredAt: now })
        .where(and(eq(signingKeys.purpose, purpose), isNull(signingKeys.retiredAt)));
      await tx.insert(signingKeys).values({ ...next, purpose, createdAt: now });
      await alongside?.(tx);
    });
  },
};
