import type { TenantDb } from '../db/tenant-scope.ts';
import { dataVersionRepo } from '../repositories/data-versions.ts';

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
 * Dashboard answers kept in this process, each under the data version it was computed at (migration 0019). A read
 * costs one version lookup; a write committed by any process changes the version, so the next read computes anew
 * and nobody is shown a figure older than their own last write. Concurrent reads of one missing answer share one
 * computation.
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
   * The answer under `key` (which names the tenant and every input of `compute`), computed in `tx` when the
   * tenant's data changed since. `platform`: the answer shows platform rows too (task runs, CWE names).
   */
  async answer<T>(tx: TenantDb, key: string, platform: boolean, compute: () => Promise<T>): Promise<T> {
    const version = await dataVersionRepo.current(tx, platform);
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
