/**
 * What a project document may be (docs/api-projects.md "Documents"): an allow-list by extension whose content
 * must also match (magic bytes, or valid UTF-8 text). The stored MIME type comes from this table, never from the
 * client. SVG, HTML, scripts and executables are not on the list: a browser could run them.
 */

type Check = 'pdf' | 'png' | 'jpeg' | 'gif' | 'webp' | 'zip' | 'text';

export interface FileKind {
  /** The canonical extension (lower case, no dot). */
  extension: string;
  mime: string;
  check: Check;
}

const KINDS: Record<string, FileKind> = {};
function kind(extensions: string[], mime: string, check: Check): void {
  for (const extension of extensions) KINDS[extension] = { extension: extensions[0]!, mime, check };
}
kind(['pdf'], 'application/pdf', 'pdf');
kind(['png'], 'image/png', 'png');
kind(['jpg', 'jpeg'], 'image/jpeg', 'jpeg');
kind(['gif'], 'image/gif', 'gif');
kind(['webp'], 'image/webp', 'webp');
kind(['txt'], 'text/plain', 'text');
kind(['csv'], 'text/csv', 'text');
kind(['md'], 'text/markdown', 'text');
kind(['json'], 'application/json', 'text');
kind(['xml'], 'application/xml', 'text');
kind(['zip'], 'application/zip', 'zip');
kind(['docx'], 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'zip');
kind(['xlsx'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'zip');
kind(['pptx'], 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'zip');
kind(['odt'], 'application/vnd.oasis.opendocument.text', 'zip');
kind(['ods'], 'application/vnd.oasis.opendocument.spreadsheet', 'zip');

export const ALLOWED_EXTENSIONS: readonly string[] = Object.keys(KINDS);

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The kind a file name announces, or undefined when its extension is not allowed. */
export function kindOfName(name: string): FileKind | undefined {
  return Object.hasOwn(KINDS, extensionOf(name)) ? KINDS[extensionOf(name)] : undefined;
}

const HEAD_BYTES = 512;
const bytes = (...values: number[]) => Buffer.from(values);
const ascii = (text: string) => Buffer.from(text, 'latin1');
const startsWith = (head: Buffer, prefix: Buffer, offset = 0) =>
  head.length >= offset + prefix.length && head.subarray(offset, offset + prefix.length).equals(prefix);

const MAGIC: Record<Exclude<Check, 'text'>, (head: Buffer) => boolean> = {
  pdf: (h) => startsWith(h, ascii('%PDF-')),
  png: (h) => startsWith(h, bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)),
  jpeg: (h) => startsWith(h, bytes(0xff, 0xd8, 0xff)),
  gif: (h) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a')),
  webp: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8),
  // A local file header; an empty archive is only its end-of-directory record.
  zip: (h) => startsWith(h, ascii('PK\x03\x04')) || startsWith(h, ascii('PK\x05\x06')),
};

// Markup a browser would render as a page if a header ever went missing on the way (its sniffing looks for these).
const MARKUP_START =
  /^(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|svg|script|body|head|iframe)\b/i;

/**
 * Checks a file's bytes against its kind while they stream past: `update` with each chunk, then `verdict` once the
 * stream ended. `failed` turns true as soon as the content is known to be wrong, so an upload can stop early.
 */
export class ContentCheck {
  private head = Buffer.alloc(0);
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private size = 0;
  failed = false;

  constructor(readonly kind: FileKind) {}

  update(chunk: Buffer): void {
    if (this.failed) return;
    this.size += chunk.length;
    if (this.head.length < HEAD_BYTES) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    }
    if (this.kind.check === 'text') {
      // Text must be UTF-8 without NUL bytes (a NUL means a binary file under a text name).
      if (chunk.includes(0)) this.failed = true;
      else {
        try {
          this.decoder.decode(chunk, { stream: true });
        } catch {
          this.failed = true;
        }
      }
    } else if (this.head.length >= 16) {
      this.failed = !MAGIC[this.kind.check](this.head);
    }
  }

  /** True when the whole content matched its kind. */
  verdict(): boolean {
    if (this.failed || this.size === 0) return false;
    if (this.kind.check !== 'text') return MAGIC[this.kind.check](this.head);
    try {
      this.decoder.decode();
    } catch {
      return false;
    }
    return !this.looksLikeMarkup();
  }

  private looksLikeMarkup(): boolean {
    // The head may end inside a multi-byte character: decoding without `fatal` only affects that last one.
    const text = new TextDecoder('utf-8')
      .decode(this.head)
      .replace(/^\uFEFF/, '')
      .trimStart();
    return MARKUP_START.test(text);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Names: the client's file name is metadata only, never a path.

export const MAX_FILE_NAME = 200;

// C0 and C1 controls, and the bidirectional overrides that can disguise an extension ("gpj.exe").
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A display name from a client's file name: the last path segment (either separator), without control
 * characters or `..`, without the leading and trailing dots and spaces Windows would drop, at most 200
 * characters (the extension kept). Empty → `fallback`.
 */
export function safeFileName(raw: string, fallback = 'document'): string {
  const segments = raw.normalize('NFC').replace(UNSAFE_CHARS, '').split(/[/\\]/);
  let name = (segments.at(-1) ?? '')
    .replace(/\.{2,}/g, '.')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .replace(/\s+/g, ' ');
  if (name === '') name = fallback;
  const chars = Array.from(name);
  if (chars.length <= MAX_FILE_NAME) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length >= 20) return chars.slice(0, MAX_FILE_NAME).join('');
  const stem = Array.from(name.slice(0, dot > 0 ? dot : undefined));
  return stem.slice(0, MAX_FILE_NAME - extension.length).join('') + extension.join('');
}

/**
 * The name a download is saved under: the document's name, with the stored type's extension added when the name
 * does not already end with one of that type's extensions (a text file renamed "x.html" is saved "x.html.txt").
 */
export function downloadName(name: string, mime: string): string {
  const own = kindOfName(name);
  if (own && own.mime === mime) return name;
  const canonical = Object.values(KINDS).find((k) => k.mime === mime)?.extension;
  return canonical ? `${name}.${canonical}` : name;
}

/** `Content-Disposition: attachment` with an ASCII fallback and the exact name RFC 5987-encoded. */
export function attachmentDisposition(name: string): string {
  const fallback =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]|["\\%;]/g, '_')
      .trim() || 'document';
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
