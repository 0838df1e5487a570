/// <reference lib="webworker" />
/**
 * The /api read path on Workbox: workbox-strategies' StaleWhileRevalidate (a kept copy within its TTL) or NetworkFirst
 * (otherwise), with plugins that apply the decisions of policy.ts and samples.ts. Nothing is decided here.
 */
import type { WorkboxPlugin } from 'workbox-core/types.js';
import { NetworkFirst } from 'workbox-strategies/NetworkFirst.js';
import { StaleWhileRevalidate } from 'workbox-strategies/StaleWhileRevalidate.js';
import { StrategyHandler } from 'workbox-strategies/StrategyHandler.js';
import type { Strategy } from 'workbox-strategies/Strategy.js';
import {
  markedHeaders,
  NETWORK_TIMEOUT_MS,
  networkVerdict,
  storedAtOf,
  storedHeaders,
  type NetworkVerdict,
  type ReadStrategy,
  type Source,
} from './policy.ts';
import { areaSampleResponse } from './mock-api.ts';
import { sampleAreaOf } from './samples.ts';

/** What handleApiGet knows of a read before it goes to Workbox. */
export interface ReadPlan {
  strategy: ReadStrategy;
  /** The reader's partition; null: nothing is kept nor read from a cache. */
  cacheName: string | null;
  /** The partition's copy of this read, whatever its age: the one its freshness was judged on. */
  kept: Response | undefined;
}

/** A copy of `response` (same body) marked with where it came from. */
function marked(response: Response, source: Source, storedAt?: number): Response {
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: markedHeaders(response.headers, source, storedAt),
  });
}

/**
 * Serves the copy handleApiGet already read (and judged fresh or stale) rather than a second lookup: the copy the
 * strategy was chosen on is the one served, and nothing else of Cache Storage than `caches.open` is needed. The
 * `cachedResponseWillBeUsed` plugins run on it as on any Workbox cache match.
 */
class KeptCopyHandler extends StrategyHandler {
  constructor(
    strategy: Strategy,
    options: { event: ExtendableEvent; request: Request },
    private readonly keptCopy: Response | undefined,
    private readonly partition: string,
  ) {
    super(strategy, options);
  }

  override async cacheMatch(key: RequestInfo): Promise<Response | undefined> {
    const request = await this.getCacheKey(typeof key === 'string' ? new Request(key) : key, 'read');
    let cached = this.keptCopy?.clone();
    for (const callback of this.iterateCallbacks('cachedResponseWillBeUsed')) {
      cached =
        (await callback({ cacheName: this.partition, request, cachedResponse: cached, event: this.event })) ??
        undefined;
    }
    return cached;
  }
}

/** The network gets NETWORK_TIMEOUT_MS to answer (its headers); then the request is aborted, as a failure. */
function timeoutPlugin(): WorkboxPlugin {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    requestWillFetch: async ({ request }) => {
      const controller = new AbortController();
      timer = setTimeout(() => controller.abort(), NETWORK_TIMEOUT_MS);
      return new Request(request, { signal: controller.signal });
    },
    fetchDidSucceed: async ({ response }) => {
      clearTimeout(timer);
      return response;
    },
    fetchDidFail: async () => clearTimeout(timer),
  };
}

/** The read layer's rules as Workbox plugin hooks, for one request. */
export function readPlugin(plan: ReadPlan): WorkboxPlugin {
  let verdict: NetworkVerdict = 'pass';
  let storedAt = 0;
  return {
    // The key is the URL alone: the request's Authorization never sits in Cache Storage beside the copy.
    cacheKeyWillBeUsed: async ({ request }) => request.url,

    fetchDidSucceed: async ({ request, response }) => {
      verdict = networkVerdict(
        {
          status: response.status,
          contentType: response.headers.get('content-type'),
          cacheControl: response.headers.get('cache-control'),
        },
        {
          kept: plan.kept !== undefined,
          sampleArea: sampleAreaOf(request.method, new URL(request.url).pathname) !== null,
          partitioned: plan.cacheName !== null,
        },
      );
      switch (verdict) {
        case 'use-kept':
          // Counted as a network failure: NetworkFirst falls back to the kept copy, a revalidation stores nothing.
          void response.body?.cancel().catch(() => undefined);
          throw new Error(`overloaded (${response.status})`);
        case 'sample':
          return (await areaSampleResponse(request)) ?? marked(response, 'network');
        case 'store':
          storedAt = Date.now();
          return marked(response, 'network', storedAt);
        case 'pass':
          return marked(response, 'network');
      }
    },

    cacheWillUpdate: async ({ response }) =>
      verdict === 'store'
        ? new Response(await response.arrayBuffer(), {
            status: response.status,
            headers: storedHeaders(response.headers, storedAt),
          })
        : null,

    cachedResponseWillBeUsed: async ({ cachedResponse }) =>
      cachedResponse && marked(cachedResponse, 'cache', storedAtOf(cachedResponse.headers)),

    // Nothing kept and no network: the area's sample where there is one; otherwise the failure goes on.
    handlerDidError: async ({ request }) => (await areaSampleResponse(request)) ?? undefined,
  };
}

/** The Workbox strategy `plan` names, for this one request (its partition is its cache). */
export function strategyFor(plan: ReadPlan): Strategy {
  const options = { cacheName: plan.cacheName ?? undefined, plugins: [timeoutPlugin(), readPlugin(plan)] };
  return plan.strategy === 'stale-while-revalidate' ? new StaleWhileRevalidate(options) : new NetworkFirst(options);
}

/**
 * Runs the read through the strategy. NetworkFirst answers once its copy is stored, so the stored-at time it carries
 * is the kept one's; StaleWhileRevalidate answers with the kept copy at once, and its revalidation finishes within
 * the event's lifetime. No answer at all (no copy, no sample, no network): a network error, for the page to handle.
 */
export async function readThroughWorkbox(event: FetchEvent, plan: ReadPlan): Promise<Response> {
  const request = event.request;
  const strategy = strategyFor(plan);
  const handler = new KeptCopyHandler(strategy, { event, request }, plan.kept, strategy.cacheName);
  const responseDone = strategy._getResponse(handler, request, event);
  const handlerDone = strategy._awaitComplete(responseDone, handler, request, event).catch(() => undefined);
  if (plan.strategy === 'network-first') await handlerDone;
  try {
    return await responseDone;
  } catch {
    return Response.error();
  }
}
