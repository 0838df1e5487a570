import { readFileSync } from 'node:fs';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ErrorReply } from '../../schemas/common.ts';
import { VERSION } from '../../version.ts';

/**
 * The OpenAPI document, built by @fastify/swagger from the routes' own TypeBox schemas: `GET /api/openapi.json`,
 * and a browsable reference under `/api/docs` (@fastify/swagger-ui, static files only, so the strict CSP holds).
 *
 * Reply schemas document; they do not filter. Answers are serialised with JSON.stringify as before, and under test
 * every answer is checked against its documented schema, so the document cannot lie without a suite failing.
 */
export default fp(
  async (app) => {
    app.addSchema(ErrorReply);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Vigie API',
          version: VERSION,
          description:
            'API de Vigie : vulnérabilités, actifs, scans, menaces, projets, audit, notifications, blog et ' +
            'administration, par organisation (en-tête X-Tenant-ID). Erreurs : {detail, code, fields?} en français.',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            cookie: { type: 'apiKey', in: 'cookie', name: 'vigie_access' },
          },
        },
        security: [{ bearer: [] }, { cookie: [] }],
      },
      // Only the API is documented: the PWA's own files and the documentation's assets are not operations.
      transform: ({ schema, url }) => ({
        schema: url.startsWith('/api/') && !url.startsWith('/api/docs') ? schema : { ...schema, hide: true },
        url,
      }),
      refResolver: {
        buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    });
    const icon = readFileSync(new URL('../../../../public/favicon.svg', import.meta.url));
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true },
      logo: { type: 'image/svg+xml', content: icon, href: '/', target: '_self' },
      theme: {
        title: 'Vigie — référence de l’API',
        favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: icon }],
        // The document is this server's own: no URL bar to explore another one.
        css: [{ filename: 'vigie.css', content: '.topbar .download-url-wrapper { display: none; }' }],
      },
    });
    app.get('/api/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('Cache-Control', 'no-cache');
      return app.swagger();
    });

    const checking = process.env.VITEST !== undefined || process.env.VIGIE_CHECK_REPLIES === '1';
    const ajv = checking ? new Ajv({ strict: false, allErrors: true }) : undefined;
    if (ajv) addFormats(ajv);
    ajv?.addSchema(ErrorReply);
    app.setSerializerCompiler(({ schema, method, url, httpStatus }) => {
      if (!ajv) return (data) => JSON.stringify(data);
      // Compiled on a route's first answer, not at start: most test apps answer a handful of routes.
      let validate: ValidateFunction | undefined;
      return (data) => {
        try {
          validate ??= ajv.compile(schema);
        } catch (err) {
          throw new Error(`reply schema of ${method} ${url} ${httpStatus} does not compile: ${String(err)}`);
        }
        // JSON's view of the data (dates as strings, undefined dropped) is what the client receives.
        const text = JSON.stringify(data);
        if (!validate(text === undefined ? null : JSON.parse(text))) {
          const message = `reply of ${method} ${url} (${httpStatus}) does not match its documented schema: ${ajv.errorsText(validate.errors)}`;
          process.stderr.write(`${message}\n`);
          throw new Error(message);
        }
        return text;
      };
    });
  },
  { name: 'openapi' },
);
