import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Serves the built PWA. Hashed assets are immutable; index.html, the service worker and the
 * manifest must be revalidated so an update reaches users. App routes fall back to index.html;
 * /api never does. Text files go out as the .br/.gz siblings the build wrote (cli/precompress.ts),
 * chosen by Accept-Encoding with `Vary: Accept-Encoding`, the SPA fallback included.
 */
const isApiPath = (url: string) => {
  const pathname = url.split('?')[0] ?? '';
  return pathname === '/api' || pathname.startsWith('/api/');
};

export default fp<{ staticDir: string }>(
  async (app, { staticDir }) => {
    const hasBuild = existsSync(path.join(staticDir, 'index.html'));
    // An /api path no API route took (a path parameter over the router's length limit, say) is not a file either:
    // the same 404 as any unknown API path, never the file server's own (English) refusal.
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.url !== '/*' || !isApiPath(request.url)) return;
      reply.callNotFound();
      return reply;
    });
    if (hasBuild) {
      await app.register(fastifyStatic, {
        root: staticDir,
        wildcard: true,
        index: ['index.html'],
        preCompressed: true,
        setHeaders(reply, filePath) {
          const rel = path.relative(staticDir, filePath);
          if (rel.startsWith('assets' + path.sep)) {
            reply.header('Cache-Control', 'public, max-age=31536000, immutable');
          } else {
            reply.header('Cache-Control', 'no-cache');
          }
        },
      });
    }

    app.setNotFoundHandler((request, reply) => {
      const url = request.url.split('?')[0] ?? '';
      if (isApiPath(url)) {
        return reply.code(404).send({ detail: 'Ressource introuvable.', code: 'not_found' });
      }
      const wantsHtml = (request.headers.accept ?? '').includes('text/html');
      if (request.method === 'GET' && wantsHtml && !path.extname(url)) {
        if (!hasBuild) {
          return reply
            .code(503)
            .type('text/plain; charset=utf-8')
            .send('Vigie: the web app is not built yet. Run `npm run build` (npm start does it for you).');
        }
        reply.header('Cache-Control', 'no-cache');
        return reply.sendFile('index.html');
      }
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    });
  },
  { name: 'static-app' },
);
