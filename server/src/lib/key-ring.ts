import { createHmac } from 'node:crypto';

/** One key of a ring: its id (in a token's header, a sealed value's prefix) and its secret. */
export interface KeyEntry {
  kid: string;
  secret: string;
}

/** A key's public fingerprint: says which key a process holds without revealing it. */
export const fingerprintOf = (secret: string) =>
  createHmac('sha256', 'vigie-key-fingerprint').update(secret).digest('hex');

/** A key's id, derived from its fingerprint so that every process names the same key the same way. */
export const kidOf = (secret: string) => `k${fingerprintOf(secret).slice(0, 16)}`;

/**
 * The keys of one purpose: the current one signs or seals; it and the others still accepted verify or open what
 * was made before a rotation.
 */
export class KeyRing {
  readonly #byKid: Map<string, KeyEntry>;

  constructor(
    readonly current: KeyEntry,
    readonly accepted: readonly KeyEntry[] = [],
  ) {
    this.#byKid = new Map([current, ...accepted].map((k) => [k.kid, k]));
  }

  /** A ring of one key (tests, a single process with its key in the environment). */
  static of(secret: string): KeyRing {
    return new KeyRing({ kid: kidOf(secret), secret });
  }

  get(kid: string): KeyEntry | undefined {
    return this.#byKid.get(kid);
  }

  /** Every key, the current one first: for what was made without a key id (before key ids existed). */
  all(): KeyEntry[] {
    return [...this.#byKid.values()];
  }
}

/** A ring, or where to read the ring now (it changes when keys rotate). */
export type KeySource = string | KeyRing | (() => KeyRing);

export function ringOf(source: KeySource): () => KeyRing {
  if (typeof source === 'function') return source;
  const ring = typeof source === 'string' ? KeyRing.of(source) : source;
  return () => ring;
}
