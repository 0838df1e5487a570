import fp from 'fastify-plugin';
import helmet from 'helmet';

/**
 * Where the page may send requests besides its own origin: the fallback backends of another origin (spec §9.19,
 * VITE_BACKEND_URLS or the run-time config file) named in VIGIE_CONNECT_SRC, comma-separated http(s) origins. Anything
 * else in the list (a path, a wildcard, a scheme without host) is refused at start: a typo must not open the CSP.
 */
export function connectSources(raw: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`VIGIE_CONNECT_SRC: « ${entry} » is not an http(s) origin`);
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '') || url.hostname.includes('*')) {
      throw new Error(`VIGIE_CONNECT_SRC: « ${entry} » is not an http(s) origin`);
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

/**
 * Strict CSP for the PWA: no inline or eval'd script, nothing framed, same-origin only (plus the fallback backends'
 * origins an operator names). HSTS only when the request really arrived over https (behind a proxy with
 * VIGIE_TRUST_PROXY).
 */
const headersFor = (connectOrigins: readonly string[]) =>
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'", ...connectOrigins],
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
    const applyHeaders = headersFor(connectSources(process.env.VIGIE_CONNECT_SRC));
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
