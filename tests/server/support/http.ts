/** The 403 body of every refused request. */
export const FORBIDDEN = {
  detail: "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource",
  code: 'permission_denied',
};

/** The 404 body of an unknown (or another tenant's) resource. */
export const NOT_FOUND = { detail: 'Ressource introuvable.', code: 'not_found' };

/**
 * A multipart/form-data part: a field (`value`), or a file (`filename`, with `content` or `value`) sent as
 * application/octet-stream unless `type` says otherwise.
 */
export type FormPart =
  | { name: string; value: string | Buffer; filename?: string; type?: string }
  | { name: string; filename: string; content: string | Buffer; type?: string };

export const BOUNDARY = '----vigie-test-boundary-7d1f';

/** A multipart/form-data body built by hand, as a browser's FormData sends it. */
export function multipartBody(parts: readonly FormPart[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const data = 'content' in p ? p.content : p.value;
    const filename = 'filename' in p ? p.filename : undefined;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
          (filename !== undefined
            ? `; filename="${filename}"\r\nContent-Type: ${p.type ?? 'application/octet-stream'}\r\n\r\n`
            : '\r\n\r\n'),
        'utf8',
      ),
      Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** The payload and Content-Type header of a multipart/form-data request. */
export function multipart(parts: readonly FormPart[], boundary = BOUNDARY) {
  return {
    payload: multipartBody(parts, boundary),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
