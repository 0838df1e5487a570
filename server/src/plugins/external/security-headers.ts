import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';

/**
 * Strict CSP for the PWA: no inline or eval'd script, nothing framed, same-origin only.
 * HSTS only when the request really arrived over https (behind a proxy with VIGIE_TRUST_PROXY).
 */
export default fp(
  async (app) => {
    await app.register(helmet, {
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
    app.addHook('onSend', async (request, reply) => {
      if (request.protocol === 'https') {
        reply.header('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
      }
    });
  },
  { name: 'security-headers' },
);
