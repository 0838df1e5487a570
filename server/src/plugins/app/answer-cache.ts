import negotiate from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { TenantDb } from '../../db/tenant-scope.ts';
import { dataVersionRepo } from '../../repositories/data-versions.ts';
import { AnswerCache } from '../../services/answer-cache.ts';
import { BROTLI_PARAMS, COMPRESSION_THRESHOLD } from '../external/compression.ts';

type Encoding = 'br' | 'gzip';
const ENCODINGS: Encoding[] = ['br', 'gzip'];

/**
 * An answer as it goes out: serialised once by the route's serializer (its reply schema is checked under test), and
 * compressed once per encoding asked, so a kept answer costs neither JSON nor compression again.
 */
export class PreparedAnswer {
  private readonly encoded = new Map<Encoding, Buffer>();
  constructor(readonly text: string) {}

  send(reply: FastifyReply): FastifyReply {
    reply.type('application/json; charset=utf-8').header('Vary', 'Accept-Encoding');
    const { headers, method } = reply.request;
    const header = headers['accept-encoding'];
    // As the compression plugin does: HEAD describes the plain answer, and x-no-compression asks for it.
    const plain =
      method === 'HEAD' || headers['x-no-compression'] !== undefined || this.text.length < COMPRESSION_THRESHOLD;
    const encoding = !plain && typeof header === 'string' ? negotiate(header.toLowerCase(), ENCODINGS) : null;
    if (!encoding) return reply.send(this.text);
    let body = this.encoded.get(encoding);
    if (!body) {
      body = encoding === 'br' ? brotliCompressSync(this.text, { params: BROTLI_PARAMS }) : gzipSync(this.text);
      this.encoded.set(encoding, body);
    }
    // Already encoded: @fastify/compress leaves it as it is.
    return reply.header('Content-Encoding', encoding).send(body);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Dashboard answers under the tenant's data version (services/answer-cache.ts). */
    answers: AnswerCache;
  }
  interface FastifyRequest {
    /**
     * The current tenant's data version, with the platform's when `platform` (the answer shows task runs, CVE or
     * CWE rows too): read at authentication, or asked for a tenant the user is not a member of.
     */
    dataVersion(platform: boolean): Promise<number>;
  }
  interface FastifyReply {
    /** `value` serialised by this route's serializer, ready to be kept and sent again. */
    prepare(value: unknown): PreparedAnswer;
    /**
     * Sends the answer under `key` (naming the tenant and every input) at the current data version, computed by
     * `compute` in the tenant's transaction when the kept one is older, then shaped by `present` once the transaction
     * ended (the connection is not held for it); kept among the dashboards' answers or the first list pages.
     */
    cachedAnswer<T>(
      key: string,
      platform: boolean,
      compute: (tx: TenantDb) => Promise<T>,
      among?: AnswerKind,
      present?: (value: T) => unknown,
    ): Promise<FastifyReply>;
    /**
     * Sends the answer under `key` at `version`, computed by `answer` when the kept one is of another version; with
     * no version, computed and sent without keeping it.
     */
    keptAnswer(
      version: number | undefined,
      key: string,
      answer: () => Promise<unknown>,
      among: AnswerKind,
    ): Promise<FastifyReply>;
  }
}

const PRUNE_EVERY_MS = 10 * 60_000;
/**
 * Lists that show people's last sign-in, which is no data change (migration 0022): kept 30 s at most, so a sign-in
 * shows within that.
 */
const PEOPLE_LISTS_AGE_MS = 30_000;

/**
 * Where an answer is kept: dashboards, the findings list's pages, lists showing people's last sign-in, users'
 * notification lists.
 */
type AnswerKind = 'dashboards' | 'list-pages' | 'people-lists' | 'inboxes';
/** A page of 25 findings is some 25 KB of JSON: 500 of them stay far below the process's memory budget. */
const LIST_PAGES_KEPT = 500;

/** The answer caches, and the pruning of the write log their versions come from (by every process). */
export default fp(
  async (app) => {
    const answers = new AnswerCache();
    const caches: Record<AnswerKind, AnswerCache> = {
      dashboards: answers,
      'list-pages': new AnswerCache({ maxEntries: LIST_PAGES_KEPT }),
      'people-lists': new AnswerCache({ maxEntries: 2000, maxAgeMs: PEOPLE_LISTS_AGE_MS }),
      inboxes: new AnswerCache({ maxEntries: 2000 }),
    };
    app.decorate('answers', answers);
    app.decorateRequest('dataVersion', async function (this: FastifyRequest, platform: boolean): Promise<number> {
      const known = this.auth?.versions;
      if (known?.tenant === undefined) return this.tenantDb((tx) => dataVersionRepo.current(tx, platform));
      return platform ? Math.max(known.tenant, known.platform) : known.tenant;
    });
    app.decorateReply('prepare', function (this: FastifyReply, value: unknown): PreparedAnswer {
      return new PreparedAnswer(this.serialize(value) as string);
    });
    app.decorateReply(
      'keptAnswer',
      async function (
        this: FastifyReply,
        version: number | undefined,
        key: string,
        answer: () => Promise<unknown>,
        among: AnswerKind,
      ): Promise<FastifyReply> {
        const prepare = async () => this.prepare(await answer());
        const prepared = version === undefined ? await prepare() : await caches[among].answer(version, key, prepare);
        return prepared.send(this);
      },
    );
    app.decorateReply('cachedAnswer', async function <
      T,
    >(this: FastifyReply, key: string, platform: boolean, compute: (tx: TenantDb) => Promise<T>, among: AnswerKind = 'dashboards', present: (value: T) => unknown = (value) => value): Promise<FastifyReply> {
      const version = await this.request.dataVersion(platform);
      return this.keptAnswer(version, key, async () => present(await this.request.tenantDb(compute)), among);
    });

    const prune = setInterval(() => {
      void dataVersionRepo
        .prune(app.database.db)
        .catch((err: unknown) => app.log.warn({ err }, 'tenant write log prune failed'));
    }, PRUNE_EVERY_MS);
    prune.unref();
    app.addHook('onClose', async () => clearInterval(prune));
  },
  { name: 'answer-cache', dependencies: ['database', 'authentication'] },
);
