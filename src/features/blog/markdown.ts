import { Marked } from 'marked';
import DOMPurify, { type DOMPurify as Purifier } from 'dompurify';
import { classifyImage } from './blog-image.tsx';

/**
 * Blog Markdown to safe HTML (docs/api-blog.md): `marked` renders it as written (raw HTML included), then
 * DOMPurify keeps only harmless HTML: no active or embedding elements, no event handlers, no style, no
 * script-bearing URLs. Loaded by the post and editor chunks only, never by the first paint.
 */

const marked = new Marked({ gfm: true, breaks: false });

const FORBID_TAGS = [
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'link',
  'meta',
  'base',
  'noscript',
  'template',
  'portal',
];

// `style` can overlay the page or fetch from elsewhere; the others can send requests or load outside images.
const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'ping', 'background', 'poster'];
const URL_ATTRS = ['href', 'src', 'xlink:href', 'cite', 'longdesc'];

/** The attribute an /api/ image's path moves to: <img> cannot send the Bearer token (see blog-image.tsx). */
export const API_IMAGE_ATTR = 'data-vigie-src';

function origin(): string {
  return typeof location === 'undefined' ? 'http://localhost' : location.origin;
}

function isExternalLink(href: string): boolean {
  try {
    const url = new URL(href, origin());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== origin();
  } catch {
    return false;
  }
}

let purifier: Purifier | undefined;

function purify(): Purifier {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeType !== 1) return;
    const tag = node.tagName.toLowerCase();
    for (const attr of URL_ATTRS) {
      const value = node.getAttribute(attr);
      if (value === null) continue;
      // Browsers ignore blanks and control characters in a scheme ('java\tscript:'): so does this check.
      const compact = [...value]
        .filter((c) => c.charCodeAt(0) > 0x20)
        .join('')
        .toLowerCase();
      // javascript:/vbscript: never (DOMPurify drops them too: belt and braces); data: only in <img src> (below).
      if (/^(javascript|vbscript):/.test(compact)) node.removeAttribute(attr);
      else if (compact.startsWith('data:') && !(tag === 'img' && attr === 'src')) node.removeAttribute(attr);
    }
    if (tag === 'img') {
      const src = node.getAttribute('src');
      if (src !== null) {
        const source = classifyImage(src);
        node.removeAttribute('src');
        if (source.kind === 'direct') node.setAttribute('src', source.src);
        else if (source.kind === 'api') node.setAttribute(API_IMAGE_ATTR, source.path);
        // 'blocked': only the alt text stays.
      }
      node.setAttribute('loading', 'lazy');
    }
    // A wide table scrolls sideways inside the post (blog.css): focusable, so the keyboard can scroll it too.
    if (tag === 'table') node.setAttribute('tabindex', '0');
    if (tag === 'a') {
      const href = node.getAttribute('href');
      if (href && isExternalLink(href)) node.setAttribute('target', '_blank');
      if (node.hasAttribute('target')) node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  purifier = p;
  return p;
}

/** Sanitises HTML with the blog's rules (exported for the tests and for any HTML that did not come from Markdown). */
export function sanitizeHtml(html: string): string {
  return purify().sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS,
    FORBID_ATTR,
    ADD_ATTR: ['target'],
    ALLOW_DATA_ATTR: false,
    ALLOW_UNKNOWN_PROTOCOLS: false,
  });
}

/** Markdown source → sanitised HTML, ready for dangerouslySetInnerHTML. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(marked.parse(source ?? '', { async: false }));
}
