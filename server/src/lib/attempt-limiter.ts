/**
 * Fixed-window attempt counter per key (an IP, an account). In memory: with several server processes
 * each keeps its own count, which only makes the limit per process.
 */
export class AttemptLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one attempt; returns the seconds to wait when `limit` is exceeded, else 0. */
  hit(key: string, limit: number): number {
    const t = this.now();
    let w = this.#windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.#windows.set(key, w);
    }
    w.count++;
    if (this.#windows.size > 50_000) this.#sweep(t);
    return w.count > limit ? Math.ceil((w.start + this.windowMs - t) / 1000) : 0;
  }

  reset(key: string): void {
    this.#windows.delete(key);
  }

  #sweep(t: number): void {
    for (const [k, w] of this.#windows) if (t - w.start >= this.windowMs) this.#windows.delete(k);
  }
}
