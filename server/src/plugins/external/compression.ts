import fp from 'fastify-plugin';
import compress from '@fastify/compress';
import { constants } from 'node:zlib';

/** Below this many bytes a buffered answer goes out as is (streams have no known size and are compressed). */
export const COMPRESSION_THRESHOLD = 1024;
/** Brotli quality on the fly: 4 packs a JSON page to gzip -9's size in ~1 ms per 58 KB; 11 takes ~80 ms. */
const BROTLI_QUALITY = 4;
/** Brotli's parameters for answers made on the fly (here, and the kept answers of plugins/app/answer-cache.ts). */
export const BROTLI_PARAMS = {
  [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
};

/**
 * Text worth compressing. Not event streams (a compressor holds events back until its buffer fills), nor
 * octet-stream, images, PDF, zip or gzip: stored files and backups are sent as they are.
 */
const COMPRESSIBLE_TYPE = /^\s*(?:text\/(?!event-stream)|[\w.-]+\/(?:[\w.-]+\+)?(?:json|xml|javascript)\s*(?:;|$))/i;

export const isCompressibleType = (contentType: string): boolean => COMPRESSIBLE_TYPE.test(contentType);

/**
 * Compresses /api answers (JSON, CSV exports, the OpenAPI document) by Accept-Encoding: brotli, else gzip, with
 * `Vary: Accept-Encoding`. Register before any route: only routes declared afterwards are covered.
 * - The built app's files are precompressed at build time and served by static-app.ts: not done again here.
 * - /api/token/ answers hold tokens next to what the caller sent: never compressed (BREACH).
 * - Streams stay streams (zlib emits as its window fills); a reply already encoded is left alone.
 * - Route-level hook, so it runs after the app's onSend hooks: idempotency keeps the uncompressed body, and a
 *   replay is compressed for the replaying request.
 */
export default fp(
  async (app) => {
    app.addHook('onRoute', (route) => {
      const url = route.url;
      const api = url === '/api' || url.startsWith('/api/');
      if (!api || url.startsWith('/api/token/')) route.compress ??= false;
    });
    await app.register(compress, {
      encodings: ['br', 'gzip'],
      threshold: COMPRESSION_THRESHOLD,
      customTypes: isCompressibleType,
      brotliOptions: { params: BROTLI_PARAMS },
      // Request bodies stay uncompressed: no client sends them so, and a small body could inflate to a huge one.
      globalDecompression: false,
    });
  },
  { name: 'compression' },
);
