import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { parseScore } from './severity.ts';

/** Helpers the parsers share: JSON access, plain text out of HTML, CWE ids, package URLs, CVSS choice, keys. */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((s): s is string => !!s) : []);

/** An IP literal goes to the asset's ip_address, a name to its hostname. */
export const isIpAddress = (host: string | undefined): boolean => host !== undefined && isIP(host) !== 0;

// Formatting tags scanners put in their texts (ZAP, Nessus): their presence says the text is HTML. A text that
// merely mentions `<script>` (a plugin's evidence) is not, and stays as it is. A tag's attributes stop at the next
// '<' too, so a hostile text of unclosed tags costs one pass, not one per tag.
const HTML_TAG = /<\/?(?:p|br|div|span|ul|ol|li|a|b|i|em|strong|code|pre|h[1-6]|table|tr|td|th|blockquote)\b[^<>]*>/i;
const BLOCK_TAG = /<\/?(?:p|br|div|ul|ol|h[1-6]|table|tr|pre|blockquote)\b[^<>]*>/gi;
const LIST_ITEM = /<li\b[^<>]*>/gi;
const ANY_TAG = /<\/?[A-Za-z][^<>]*>/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  // One pass, so `&amp;lt;` becomes the text `&lt;`, not `<`.
  return text.replace(/&(#x[0-9a-f]{1,8}|#\d{1,8}|[a-z]{1,10});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : '\uFFFD';
    }
    const key = name.toLowerCase();
    return Object.hasOwn(NAMED_ENTITIES, key) ? NAMED_ENTITIES[key]! : whole;
  });
}

/** HTML comments out, in one pass (an unclosed one runs to the end). */
function withoutComments(text: string): string {
  const [first = '', ...rest] = text.split('<!--');
  return (
    first +
    rest
      .map((part) => {
        const end = part.indexOf('-->');
        return end < 0 ? '' : part.slice(end + 3);
      })
      .join('')
  );
}

/**
 * A scanner's text as plain text: HTML (ZAP's `<p>…</p>`) loses its tags and comments, its paragraphs and list
 * items become lines and its entities are decoded; plain text keeps its lines, without the XML's indentation.
 */
export function plainText(raw: string | undefined): string {
  if (!raw) return '';
  let text = raw.replace(/\r\n?/g, '\n');
  const html = HTML_TAG.test(text);
  if (html) {
    text = withoutComments(text)
      .replace(/\s+/g, ' ')
      .replace(LIST_ITEM, '\n- ')
      .replace(BLOCK_TAG, '\n')
      .replace(ANY_TAG, '');
    text = decodeEntities(text);
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Non-empty parts as paragraphs. */
export const paragraphs = (...parts: (string | undefined)[]): string => parts.filter((p) => !!p).join('\n\n');

/** CWE ids in `CWE-79` form from what reports give: 79, '79', 'CWE-79', 'CWE-79: name', 'external/cwe/cwe-079'. */
export function cweIds(values: readonly unknown[]): string[] | undefined {
  const out = new Set<string>();
  for (const value of values) {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    const m = /^(\d+)$/.exec(text) ?? /\bcwe[-:](\d+)\b/i.exec(text);
    const n = m ? Number(m[1]) : NaN;
    // 0 and -1 stand for « no CWE » (ZAP); NVD-CWE-Other and NVD-CWE-noinfo carry no number.
    if (Number.isSafeInteger(n) && n > 0) out.add(`CWE-${n}`);
  }
  return out.size > 0 ? [...out] : undefined;
}

/** A package URL (pkg:type/namespace/name@version?qualifiers#subpath), as far as a finding needs it. */
export interface Purl {
  type: string;
  namespace: string | undefined;
  name: string;
  version: string | undefined;
}

export function parsePurl(raw: string | undefined): Purl | undefined {
  const m = /^pkg:([A-Za-z.+-]+)\/([^?#]+)/.exec(raw?.trim() ?? '');
  if (!m) return undefined;
  const at = m[2]!.lastIndexOf('@');
  const path = at > 0 ? m[2]!.slice(0, at) : m[2]!;
  const segments = path.split('/').filter(Boolean).map(safeDecode);
  const name = segments.pop();
  if (!name) return undefined;
  return {
    type: m[1]!.toLowerCase(),
    namespace: segments.length > 0 ? segments.join('/') : undefined,
    name,
    version: at > 0 ? safeDecode(m[2]!.slice(at + 1)) : undefined,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A package's name as its ecosystem writes it: group:artifact for Maven, @scope/name for npm, else the name. */
export function purlPackageName(purl: Purl): string {
  if (!purl.namespace) return purl.name;
  if (purl.type === 'maven') return `${purl.namespace}:${purl.name}`;
  if (purl.type === 'npm' || purl.type === 'golang' || purl.type === 'composer')
    return `${purl.namespace}/${purl.name}`;
  return purl.name;
}

export interface Cvss {
  score: number;
  vector: string | undefined;
  /** 2, 3 or 4. */
  version: number;
}

/** The CVSS to keep among a report's: v3.x first, then v4, then v2 (v3 is what the CVE store and the lists show). */
export function preferredCvss(entries: readonly (Cvss | undefined)[]): Cvss | undefined {
  const rank = (c: Cvss) => (c.version === 3 ? 0 : c.version === 4 ? 1 : 2);
  return entries.filter((c): c is Cvss => !!c).sort((a, b) => rank(a) - rank(b))[0];
}

/** A CVSS entry from a score and a vector whose version is read from the vector when it says it. */
export function cvssOf(score: unknown, vector: string | undefined, version?: number): Cvss | undefined {
  const parsed = parseScore(score);
  if (parsed === undefined) return undefined;
  const v = vector?.trim() || undefined;
  const named = /^CVSS:(\d)/.exec(v ?? '')?.[1];
  return { score: parsed, vector: v, version: named ? Number(named) : (version ?? (v?.includes('Au:') ? 2 : 3)) };
}

// A finding key is part of a unique index: a very long one (a ZAP URL with its query) is cut and hashed.
const MAX_KEY = 500;

/**
 * The finding key from its parts joined by '|' (absent parts left out); beyond 500 characters its head and a hash
 * of the whole, the same at every import.
 */
export function findingKey(...parts: (string | number | undefined)[]): string {
  const key = parts.filter((p) => p !== undefined && p !== '').join('|');
  if (key.length <= MAX_KEY) return key;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
  return `${key.slice(0, MAX_KEY - 34)}#${hash}`;
}
