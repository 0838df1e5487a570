// @vitest-environment jsdom
// DOMPurify does not support happy-dom (its sanitising is broken there): these checks run in jsdom.
import { describe, expect, it } from 'vitest';
import { API_IMAGE_ATTR, renderMarkdown, sanitizeHtml } from '../../src/features/blog/markdown.ts';
import { classifyImage } from '../../src/features/blog/blog-image.tsx';

/** Parses rendered HTML so the assertions look at elements and attributes, not at string details. */
function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

function everyAttribute(root: HTMLElement): string[] {
  return [...root.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => `${a.name}=${a.value}`));
}

describe('blog Markdown sanitising', () => {
  it('drops <script> (raw HTML in Markdown) and keeps the text around it', () => {
    const root = dom(renderMarkdown('Bonjour\n\n<script>alert(1)</script>\n\nFin'));
    expect(root.querySelector('script')).toBeNull();
    expect(root.textContent).toContain('Bonjour');
    expect(root.textContent).toContain('Fin');
    expect(root.innerHTML).not.toContain('alert(1)');
  });

  it('drops event handlers: <img onerror>, <svg onload>, <a onclick>, <div onmouseover>', () => {
    const root = dom(
      renderMarkdown(
        '<img src="/x.png" onerror="alert(1)">\n\n<svg onload="alert(2)"><circle r="4"/></svg>\n\n' +
          '<a href="/ok" onclick="alert(3)">lien</a> <div onmouseover="alert(4)">zone</div>',
      ),
    );
    expect(everyAttribute(root).filter((a) => a.startsWith('on'))).toEqual([]);
    expect(root.querySelector('svg')).toBeNull();
    expect(root.innerHTML).not.toMatch(/alert\(/);
    expect(root.querySelector('img')?.getAttribute('src')).toBe('/x.png');
  });

  it('drops javascript:, vbscript: and data:text/html links, whatever their spelling', () => {
    const root = dom(
      renderMarkdown(
        '[a](javascript:alert(1)) [b](JaVaScRiPt:alert(2)) <a href="java\tscript:alert(3)">c</a> ' +
          '<a href="vbscript:msgbox(1)">d</a> [e](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) ' +
          '<a href="&#106;avascript:alert(4)">f</a>',
      ),
    );
    const hrefs = [...root.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    for (const href of hrefs) expect(href ?? '').not.toMatch(/script|data:/i);
    expect(root.textContent).toContain('e');
  });

  it('forbids iframe, object, embed, form, input, style and the style attribute', () => {
    const root = dom(
      sanitizeHtml(
        '<iframe src="https://example.org"></iframe><object data="x.swf"></object><embed src="x.swf">' +
          '<form action="/api/logout/"><input name="q"><button>Go</button></form>' +
          '<style>body{display:none}</style><p style="position:fixed;inset:0">texte</p><link rel="stylesheet" href="/x.css">',
      ),
    );
    for (const tag of ['iframe', 'object', 'embed', 'form', 'input', 'button', 'style', 'link'])
      expect(root.querySelector(tag), tag).toBeNull();
    expect(root.querySelector('p')?.hasAttribute('style')).toBe(false);
    expect(root.textContent).toContain('texte');
  });

  it('keeps data:image/* only in <img src>', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const root = dom(
      sanitizeHtml(`<img src="${png}" alt="pixel"><a href="${png}">lien</a><img src="data:text/html,<b>x</b>">`),
    );
    const imgs = root.querySelectorAll('img');
    expect(imgs[0]!.getAttribute('src')).toBe(png);
    expect(imgs[1]!.hasAttribute('src')).toBe(false);
    expect(root.querySelector('a')!.hasAttribute('href')).toBe(false);
  });

  it('adds rel="noopener noreferrer" to links with a target, and opens outside links in a new tab', () => {
    const root = dom(
      renderMarkdown('[NVD](https://nvd.nist.gov/) [interne](/projects/4) <a href="/x" target="_blank">x</a>'),
    );
    const [outside, inside, targeted] = [...root.querySelectorAll('a')];
    expect(outside!.getAttribute('target')).toBe('_blank');
    expect(outside!.getAttribute('rel')).toBe('noopener noreferrer');
    expect(inside!.hasAttribute('target')).toBe(false);
    expect(targeted!.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('blog images under /api/ wait for an authorised fetch; images from elsewhere and other /api/ paths load nothing', () => {
    const root = dom(
      renderMarkdown(
        '![schéma](/api/blog/images/12/) ![pixel](https://tracker.example/p.gif) ![audit](/api/audit/results/) ![local](/favicon.svg)',
      ),
    );
    const [blog, tracker, audit, local] = [...root.querySelectorAll('img')];
    expect(blog!.hasAttribute('src')).toBe(false);
    expect(blog!.getAttribute(API_IMAGE_ATTR)).toBe('/api/blog/images/12/');
    expect(tracker!.hasAttribute('src')).toBe(false);
    expect(tracker!.getAttribute('alt')).toBe('pixel');
    expect(audit!.hasAttribute('src')).toBe(false);
    expect(audit!.hasAttribute(API_IMAGE_ATTR)).toBe(false);
    expect(local!.getAttribute('src')).toBe('/favicon.svg');
    // An author cannot plant the attribute themselves.
    expect(
      dom(sanitizeHtml(`<img ${API_IMAGE_ATTR}="/api/audit/results/">`)).querySelector('img')!.attributes,
    ).toHaveLength(1);
  });

  it('keeps safe Markdown: headings, lists, tables, code, emphasis, links, quotes', () => {
    const root = dom(
      renderMarkdown(
        [
          '## Ce que nous recommandons',
          '',
          '1. Installer le correctif',
          '2. Fermer les sessions',
          '',
          '- KEV',
          '- EPSS',
          '',
          '| Situation | Délai |',
          '| --- | --- |',
          '| KEV exposée | 48 heures |',
          '',
          '```',
          'kill aaa session -all <b>',
          '```',
          '',
          'Du **gras**, de l’*italique*, du `code` et [un lien](/vulnerabilities/list?text=CVE-2023-4966).',
          '',
          '> Une citation',
        ].join('\n'),
      ),
    );
    expect(root.querySelector('h2')?.textContent).toBe('Ce que nous recommandons');
    expect(root.querySelectorAll('ol li')).toHaveLength(2);
    expect(root.querySelectorAll('ul li')).toHaveLength(2);
    expect(root.querySelector('table th')?.textContent).toBe('Situation');
    expect(root.querySelector('table td')?.textContent).toBe('KEV exposée');
    // A wide table scrolls inside the post: the keyboard reaches it too.
    expect(root.querySelector('table')?.getAttribute('tabindex')).toBe('0');
    expect(root.querySelector('pre code')?.textContent).toBe('kill aaa session -all <b>\n');
    expect(root.querySelector('strong')?.textContent).toBe('gras');
    expect(root.querySelector('em')?.textContent).toBe('italique');
    expect(root.querySelector('p code')?.textContent).toBe('code');
    expect(root.querySelector('a')?.getAttribute('href')).toBe('/vulnerabilities/list?text=CVE-2023-4966');
    expect(root.querySelector('blockquote')?.textContent?.trim()).toBe('Une citation');
  });

  it('classifies images the way they may be loaded', () => {
    expect(classifyImage('/api/blog/images/3/')).toEqual({ kind: 'api', path: '/api/blog/images/3/' });
    expect(classifyImage('/api//blog/images/3/')).toEqual({ kind: 'api', path: '/api/blog/images/3/' });
    expect(classifyImage('/api/notifications/notifications/')).toEqual({ kind: 'blocked' });
    expect(classifyImage('//evil.example/x.png')).toEqual({ kind: 'blocked' });
    expect(classifyImage('/icons/icon-192.png')).toEqual({ kind: 'direct', src: '/icons/icon-192.png' });
    expect(classifyImage('data:image/gif;base64,R0lGOD')).toEqual({
      kind: 'direct',
      src: 'data:image/gif;base64,R0lGOD',
    });
    expect(classifyImage('data:text/html,x')).toEqual({ kind: 'blocked' });
  });
});
