import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

/** A request as a stub backend received it: its JSON body read ({} when there was none). */
export interface StubRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A stub's answer: a JSON body (none when undefined) and any extra headers. */
export interface StubAnswer {
  status: number;
  json?: unknown;
  headers?: Record<string, string>;
}

/**
 * Another backend speaking the API contract its own way (DRF/SimpleJWT and friends), listening on loopback for the
 * whole file: `answer` decides each request; nothing decided is a DRF 404. Returns the backend's base URL getter.
 */
export function useStubBackend(answer: (request: StubRequest) => StubAnswer | undefined): () => string {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const request: StubRequest = {
          method: req.method!,
          path: new URL(req.url!, 'http://x').pathname,
          headers: req.headers,
          body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
        };
        const reply = answer(request) ?? { status: 404, json: { detail: 'Not found.' } };
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.json === undefined ? '' : JSON.stringify(reply.json));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return () => base;
}
