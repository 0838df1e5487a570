import type { Page } from 'playwright-core';

/**
 * Issue 20, « French everywhere »: what a screen shows of its own (headings, labels, buttons, column heads, menus,
 * badges, messages, and every cell or value that is a single word) must be French, and no enum may show as the API
 * spells it (UPPER_CASE, snake_case, a bare severity). Data people typed or imported (a CVE's English summary, a
 * finding's title) is not the interface: only single-word values are read from it.
 */

/** English words that have no place in a French interface (whole words, any case). */
export const ENGLISH_WORDS = [
  'the',
  'and',
  'of',
  'with',
  'is',
  'are',
  'must',
  'should',
  'required',
  'invalid',
  'error',
  'errors',
  'failed',
  'loading',
  'submit',
  'cancel',
  'save',
  'delete',
  'edit',
  'search',
  'status',
  'settings',
  'unknown',
  'none',
  'true',
  'false',
  'null',
  'undefined',
  'nan',
  'username',
  'password',
  'login',
  'logout',
  'sign',
  'dashboard',
  'severity',
  'priority',
  'assignee',
  'pending',
  'running',
  'success',
  'failure',
  'started',
  'retry',
  'revoked',
  'open',
  'closed',
  'resolved',
  'created',
  'updated',
  'yes',
  'back',
  'next',
  'previous',
  'showing',
  'results',
  'items',
  'empty',
  'not found',
  'forbidden',
  'unauthorized',
];

/** Acronyms and names a French team writes in capitals. */
const CAPITALS_ALLOWED = new Set([
  'CVE',
  'CVSS',
  'EPSS',
  'KEV',
  'CWE',
  'NVD',
  'CISA',
  'SSVC',
  'API',
  'CSV',
  'JSON',
  'PDF',
  'XML',
  'SARIF',
  'HTTP',
  'HTTPS',
  'URL',
  'TLS',
  'SSL',
  'VPN',
  'EDR',
  'SIEM',
  'SOC',
  'MFA',
  'OTP',
  'TOTP',
  'IP',
  'IPV4',
  'IPV6',
  'DNS',
  'SQL',
  'XSS',
  'RGPD',
  'ANSSI',
  'OWASP',
  'ZAP',
  'SBOM',
  'VEX',
  'SLA',
  'RSS',
  'UTC',
  'CET',
  'CEST',
  'OK',
  'PWA',
  'ID',
  'UUID',
  'IANA',
  'JPEG',
  'PNG',
  'GIF',
  'DORA',
  'CSRF',
  'SSRF',
  'NTFS',
  'SMTP',
  'LDAP',
  'SSO',
  'RCE',
  'ISO',
  'NIST',
  'PCI',
  'DSS',
  'ACME',
  'AWS',
  'GCP',
  'OS',
  'RAM',
  'CPU',
  'HTML',
  'NIS',
  'II',
  'III',
  'IV',
  'WAF',
  'LAN',
  'WAN',
  'DMZ',
  'AD',
  'SAML',
  'OIDC',
  'SSH',
  'RDP',
  'SMB',
  'GO',
  'MO',
  'KO',
  'TO',
  'NAS',
  'SAN',
  'ERP',
  'CRM',
  'PKI',
  'HSM',
  'IAM',
  'PAM',
  'GED',
  'DSI',
  'RSSI',
  'DPO',
  'PSSI',
  'PRA',
  'PCA',
]);

const RAW_ENUM = [
  /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/, // IN_PROGRESS
  /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/, // brute_force
  /^[a-z]+\.[a-z_]+(?:\.[a-z_]+)+$/, // vulnerabilities.tasks.update_cve_database
  /^(?:critical|high|medium|low|info|active|closed|todo|done|pending|success|failure|started|open)$/, // bare values
];

export interface LanguageFinding {
  text: string;
  why: string;
  where: string;
}

/**
 * The interface's own text and every single-word value on the page, with where each sits. Content is left out: what
 * sits inside `[data-content]` (a finding's title or description, as its scanner or author wrote it), `[lang="en"]`
 * (NVD's and MITRE's English texts, a licence's notice) and rendered Markdown; in an attribute, what is quoted « … »
 * or follows « : » (« Supprimer : <title> »).
 */
function visibleInterfaceText(page: Page): Promise<{ text: string; where: string; single: boolean }[]> {
  return page.evaluate(() => {
    const CHROME =
      'h1, h2, h3, h4, th, label, button, legend, dt, caption, summary, nav a, option, [role="alert"], [role="status"], .badge, .pill, .muted, .hint, .error, .notice, .empty, p';
    const CONTENT = '[data-content], [lang="en"], .markdown, .blog-body, .vm-wrap';
    const out: { text: string; where: string; single: boolean }[] = [];
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className ? `.${el.className.split(' ')[0]}` : ''}`;
    const visible = (el: Element) => el.checkVisibility({ visibilityProperty: true, opacityProperty: false });
    /** The element's visible text without its content parts. */
    const ownText = (el: Element) => {
      let text = '';
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest(CONTENT) || !visible(parent)) continue;
        text += node.textContent;
      }
      return text.replace(/\s+/g, ' ').trim();
    };
    for (const el of document.querySelectorAll(CHROME)) {
      if (el.closest(CONTENT) || !visible(el)) continue;
      const text = ownText(el);
      if (text) out.push({ text, where: describe(el), single: false });
    }
    for (const el of document.querySelectorAll('td, dd, span, li, a, strong, small')) {
      if (el.children.length > 0 || el.closest(CONTENT) || !visible(el)) continue;
      const text = (el as HTMLElement).innerText?.trim();
      if (text && !/\s/.test(text)) out.push({ text, where: describe(el), single: true });
    }
    for (const el of document.querySelectorAll('input[placeholder], textarea[placeholder], [aria-label], [title]')) {
      // A data cell's title repeats its content in full.
      if (el.closest(CONTENT) || el.closest('tbody td') || !visible(el)) continue;
      for (const attr of ['placeholder', 'aria-label', 'title']) {
        const text = el
          .getAttribute(attr)
          ?.replace(/«[^»]*»/g, '')
          .split(' : ')[0]!
          .trim();
        if (text) out.push({ text, where: `${describe(el)}[${attr}]`, single: false });
      }
    }
    return out;
  });
}

const englishPattern = new RegExp(`(?:^|[^\\p{L}])(${ENGLISH_WORDS.join('|')})(?=$|[^\\p{L}])`, 'iu');

/** What on the page reads as English or as a raw enum. */
export async function languageFindings(page: Page): Promise<LanguageFinding[]> {
  const found = new Map<string, LanguageFinding>();
  for (const { text, where, single } of await visibleInterfaceText(page)) {
    const add = (why: string) => found.set(`${text}|${why}`, { text: text.slice(0, 80), why, where });
    if (single) {
      const word = text.replace(/^[«(\s]+|[»).,:;!?\s]+$/g, '');
      if (RAW_ENUM.some((re) => re.test(word))) add('raw enum');
      else if (/^[A-Z]{4,}$/.test(word) && !CAPITALS_ALLOWED.has(word)) add('raw enum');
      continue;
    }
    const english = englishPattern.exec(text);
    if (english) add(`English « ${english[1]} »`);
    for (const word of text.split(/[^\p{L}\p{N}_.]+/u)) {
      if (RAW_ENUM.slice(0, 3).some((re) => re.test(word))) add(`raw enum « ${word} »`);
      else if (/^[A-Z]{4,}$/.test(word) && !CAPITALS_ALLOWED.has(word)) add(`capitals « ${word} »`);
    }
  }
  return [...found.values()];
}
