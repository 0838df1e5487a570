/** Samples kept per route for the percentiles: the latest ones, enough for a steady p99. */
const SAMPLES = 2048;

interface RouteHolds {
  count: number;
  totalMs: number;
  maxMs: number;
  samples: Float64Array;
}

export interface RouteHoldFigures {
  route: string;
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  totalMs: number;
}

/**
 * How long each route keeps a database connection in its tenant transactions, in this process (issue 19: a request
 * holds a connection only while it queries). Read by superusers under /api/admin/status/connections/ and by the
 * crowd bench.
 */
export class ConnectionHolds {
  private readonly routes = new Map<string, RouteHolds>();
  readonly since = new Date();

  record(route: string, ms: number): void {
    let r = this.routes.get(route);
    if (!r) this.routes.set(route, (r = { count: 0, totalMs: 0, maxMs: 0, samples: new Float64Array(SAMPLES) }));
    r.samples[r.count % SAMPLES] = ms;
    r.count += 1;
    r.totalMs += ms;
    if (ms > r.maxMs) r.maxMs = ms;
  }

  /** Every route seen, the longest total hold first. */
  figures(): RouteHoldFigures[] {
    return [...this.routes.entries()]
      .map(([route, r]) => {
        const kept = r.samples.slice(0, Math.min(r.count, SAMPLES)).sort();
        const at = (q: number) => kept[Math.min(kept.length - 1, Math.floor(q * kept.length))] ?? 0;
        return { route, count: r.count, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: r.maxMs, totalMs: r.totalMs };
      })
      .sort((a, b) => b.totalMs - a.totalMs);
  }
}
