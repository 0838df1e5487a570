import { SaxesParser } from 'saxes';
import { dtdRefused, MESSAGES, ReportError } from './types.ts';

/** A small element tree, built only for the elements a parser asks for (one host, one result). */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (CDATA included), not its descendants'. */
  text: string;
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.name === name) : [];
}

export function childText(el: XmlElement | undefined, name: string): string | undefined {
  const found = child(el, name);
  return found ? found.text.trim() : undefined;
}

/** Every descendant with this name, depth first. */
export function descendants(el: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    descendants(c, name, out);
  }
  return out;
}

// Real Nmap output carries a bare `<!DOCTYPE nmaprun>`: it declares nothing, so it is the one DOCTYPE accepted.
// Anything with an internal subset, an external id (SYSTEM/PUBLIC) or a declaration is refused.
const BARE_DOCTYPE = /^\s*[A-Za-z_:][\w.:-]*\s*$/;
const DECLARATION = /<!(?:ENTITY|ELEMENT|ATTLIST|NOTATION)\b/i;
const DOCTYPE = /<!DOCTYPE([^>]*)>/gi;

/**
 * Refuses DTDs and entity declarations found in a document's head (the prolog, before the root element), so
 * XXE and entity-expansion bombs are turned away before any parsing. The parser re-checks its doctype event.
 */
export function assertNoDtd(head: string): void {
  if (DECLARATION.test(head)) throw dtdRefused();
  for (const m of head.matchAll(DOCTYPE)) {
    if (!BARE_DOCTYPE.test(m[1] ?? '')) throw dtdRefused();
  }
}

export interface XmlStreamOptions {
  /** Format label for error messages ('Nmap XML'). */
  label: string;
  /** Called with the root element's name; throw to refuse the document. */
  onRoot?: (name: string) => void;
  /** Whether to build the tree of this element (given the names of its ancestors, root first). */
  select: (name: string, ancestors: readonly string[]) => boolean;
  onElement: (el: XmlElement, ancestors: readonly string[]) => void;
  signal?: AbortSignal | undefined;
}

/**
 * Streams XML through saxes, which never expands entities nor fetches anything: an undefined entity reference is
 * an error. Only selected elements are kept in memory, one at a time.
 */
export async function streamXml(chunks: AsyncIterable<string | Buffer>, opts: XmlStreamOptions): Promise<void> {
  const parser = new SaxesParser({ position: true });
  const names: string[] = [];
  // The trees under construction: building[0] is the selected element, the rest its open descendants.
  const building: XmlElement[] = [];
  let rootSeen = false;
  let head = '';

  parser.on('doctype', (doctype) => {
    if (!BARE_DOCTYPE.test(doctype)) throw dtdRefused();
  });
  parser.on('opentag', (tag) => {
    if (!rootSeen) {
      rootSeen = true;
      opts.onRoot?.(tag.name);
    }
    const attrs: Record<string, string> = {};
    // Without the xmlns option saxes gives plain string attribute values.
    for (const [k, v] of Object.entries(tag.attributes as Record<string, string>)) attrs[k] = v;
    if (building.length > 0 || opts.select(tag.name, names)) {
      const el: XmlElement = { name: tag.name, attrs, children: [], text: '' };
      building.at(-1)?.children.push(el);
      building.push(el);
    }
    names.push(tag.name);
  });
  const addText = (text: string) => {
    const el = building.at(-1);
    if (el) el.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    names.pop();
    if (building.length > 0) {
      const el = building.pop()!;
      if (building.length === 0) opts.onElement(el, names);
    }
  });

  try {
    for await (const chunk of chunks) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      // Until the root element opens, keep the raw head and check it for declarations.
      if (!rootSeen && head.length < 1_000_000) {
        head += text;
        const rootAt = head.search(/<[A-Za-z_]/);
        assertNoDtd(rootAt >= 0 ? head.slice(0, rootAt) : head);
      }
      parser.write(text);
    }
    parser.close();
  } catch (err) {
    if (err instanceof ReportError || (opts.signal?.aborted && err === opts.signal.reason)) throw err;
    const message = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'erreur inconnue';
    throw new ReportError(400, 'report_malformed', MESSAGES.malformedXml(opts.label, message));
  }
  if (!rootSeen) throw new ReportError(400, 'report_malformed', MESSAGES.malformedXml(opts.label, 'aucun élément'));
}
