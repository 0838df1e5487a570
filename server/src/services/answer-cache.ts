interface Entry {
  version: number;
  at: number;
  value: Promise<unknown>;
}

export interface AnswerCacheOptions {
  /** Answers kept (least recently used go first). */
  maxEntries?: number;
  /** A safety net for what no version covers: an answer older than this is computed again. */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * Answers kept in this process, each under the data version read before it was computed (migration 0019; the version
 * comes with the signed-in state, so a hit costs no query of its own). A write committed by any process changes the
 * version, so the next read computes anew and nobody is shown a figure older than their own last write; an answer
 * computed after its version was read can only be newer, never older. Concurrent reads of one missing answer share
 * one computation.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(opts: AnswerCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 5000;
    this.maxAgeMs = opts.maxAgeMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * The answer under `key` (which names the tenant and every input of `compute`) at `version`, computed when the
   * kept one is of another version.
   */
  answer<T>(version: number, key: string, compute: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && now - hit.at < this.maxAgeMs) {
      // Most recently used last: the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value as Promise<T>;
    }
    const value = compute();
    const entry: Entry = { version, at: now, value };
    this.entries.delete(key);
    this.entries.set(key, entry);
    // A failed computation is not kept.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
