import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenS3Request {
  method: string;
  url: string;
  authorization: string | undefined;
  contentLength: string | undefined;
}

export interface FakeS3 {
  /** http://127.0.0.1:{port}, path-style: objects are keyed `/{bucket}/{key}`. */
  endpoint: string;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An in-process fake S3 (path-style PUT, GET, DELETE) keeping objects in `objects` and every request in `seen`;
 * requests not signed with the access key AKIAFAKE are refused as S3 would.
 */
export async function startFakeS3(objects: Map<string, Buffer>, seen: SeenS3Request[] = []): Promise<FakeS3> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      seen.push({
        method: req.method ?? '',
        url: url.pathname,
        authorization: req.headers.authorization,
        contentLength: req.headers['content-length'],
      });
      const key = decodeURIComponent(url.pathname);
      if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 Credential=AKIAFAKE/')) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<Error><Code>AccessDenied</Code><Message>no</Message></Error>');
        return;
      }
      if (req.method === 'PUT') {
        objects.set(key, await body(req));
        res.writeHead(200, { etag: '"fake"' });
        res.end();
      } else if (req.method === 'GET') {
        const object = objects.get(key);
        if (!object) {
          res.writeHead(404, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>absent</Message></Error>');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': object.length });
        res.end(object);
      } else if (req.method === 'DELETE') {
        objects.delete(key);
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(405);
        res.end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
