import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * Strict CSP for the PWA: no inline or eval'd script, nothing framed, same-origin only.
 * HSTS only when the request really arrived over https (behind a proxy with VIGIE_TRUST_PROXY).
 */
const applyHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'"],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  hsts: false,
  // The app loads nothing cross-origin, so the strictest isolation costs nothing.
  crossOriginEmbedderPolicy: { policy: 'require-corp' },
});

/**
 * Helmet's middleware made once: @fastify/helmet builds it again for every request, which cost a tenth of the
 * process's time under a crowd (bench, issue 19).
 */
export default fp(
  async (app) => {
    app.addHook('onRequest', (request, reply, done) => {
      applyHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
    });
    app.addHook('onSend', async (request, reply) => {
      if (request.protocol === 'https') {
        reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      }
    });
  },
  { name: 'security-headers' },
);
