import { ImportError } from './types.ts';

export interface ArrayItem {
  value: unknown;
  /** 1-based position in the array. */
  index: number;
  /** Line of the file where the item starts. */
  line: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const NEWLINE = 0x0a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Streams the items of the array under `key` of a top-level JSON object ({"vulnerabilities": [{…}, …]}), one
 * JSON.parse per item, so memory stays bounded by one record whatever the file size.
 *
 * Why not stream-json's parser + pick + streamArray: on the NVD feeds it tokenises about 4,000 records/s on one
 * core (18 MB/s), below the import target on its own. This scanner only tracks strings and nesting depth (the
 * structural characters are ASCII, so UTF-8 sequences are never split wrongly) and hands each item's bytes to
 * the native JSON.parse, which validates them: several times faster for the same bounded memory.
 */
export async function* jsonArrayItems(
  chunks: AsyncIterable<Buffer | string>,
  key: string,
  label: string,
): AsyncGenerator<ArrayItem> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let started = false;
  /** Bytes of the string being read at depth 1 (a key of the top-level object). */
  let keyParts: Buffer[] | null = null;
  let lastKey = '';
  let inArray = false;
  /** Depth of the target array once opened (items live just inside it). */
  let arrayDepth = 0;
  let item: Buffer[] | null = null;
  let itemStart = 0;
  let itemLine = 0;
  let index = 0;

  for await (const raw of chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    const length = chunk.length;
    if (item) itemStart = 0;
    // Strings are skipped with native searches (most of a feed's bytes are inside strings).
    let nextBackslash = chunk.indexOf(BACKSLASH);
    for (let i = 0; i < length; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        const quote = chunk.indexOf(QUOTE, i);
        const stop = nextBackslash !== -1 && (quote === -1 || nextBackslash < quote) ? nextBackslash : quote;
        if (stop === -1) {
          keyParts?.push(chunk.subarray(i));
          i = length;
          continue;
        }
        keyParts?.push(chunk.subarray(i, stop));
        i = stop;
        if (stop === nextBackslash) escaped = true;
        else {
          inString = false;
          if (keyParts) {
            lastKey = Buffer.concat(keyParts).toString('utf8');
            keyParts = null;
          }
        }
        continue;
      }
      const b = chunk[i]!;
      if (b === NEWLINE) line++;
      if (isSpace(b)) continue;
      if (!started) {
        if (b === 0xef || b === 0xbb || b === 0xbf) continue; // UTF-8 byte order mark
        if (b !== OPEN_OBJECT) throw new ImportError(`${label} : le fichier n'est pas un objet JSON (ligne ${line}).`);
        started = true;
      }
      if (inArray && depth === arrayDepth && !item) {
        if (b === CLOSE_ARRAY) return; // the array is complete: the rest of the file is of no interest
        if (b === 0x2c) continue; // comma between items
        if (b !== OPEN_OBJECT) {
          throw new ImportError(`${label} : élément ${index + 1} (ligne ${line}) : un objet JSON est attendu.`);
        }
        item = [];
        itemStart = i;
        itemLine = line;
      }
      if (b === QUOTE) {
        inString = true;
        if (depth === 1 && !inArray) keyParts = [];
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        depth++;
        if (b === OPEN_ARRAY && depth === 2 && !inArray && lastKey === key) {
          inArray = true;
          arrayDepth = depth;
        }
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth--;
        if (depth < 0) throw new ImportError(`${label} : JSON invalide à la ligne ${line}.`);
        if (item && depth === arrayDepth) {
          item.push(chunk.subarray(itemStart, i + 1));
          const text = Buffer.concat(item).toString('utf8');
          item = null;
          index++;
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            throw new ImportError(`${label} : enregistrement ${index} (ligne ${itemLine}) : JSON invalide.`);
          }
          yield { value, index, line: itemLine };
        }
      }
    }
    if (item) item.push(chunk.subarray(itemStart));
  }
  if (!started) throw new ImportError(`${label} : fichier vide.`);
  if (!inArray) throw new ImportError(`${label} : aucun tableau « ${key} » trouvé.`);
  throw new ImportError(`${label} : fichier tronqué (fin inattendue à la ligne ${line}).`);
}
