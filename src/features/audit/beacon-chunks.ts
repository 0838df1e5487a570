const encoder = new TextEncoder();

/** The size the browser counts against the beacon quota: UTF-8 bytes, not UTF-16 code units. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

export interface BeaconItem<K> {
  key: K;
  /** The event already serialised with JSON.stringify. */
  json: string;
}

export interface BeaconChunk<K> {
  keys: K[];
  /** Exactly JSON.stringify({ events, token }) for the chunk's events. */
  body: string;
}

export interface BeaconPlan<K> {
  chunks: BeaconChunk<K>[];
  /** Items that cannot fit even alone next to the token; they are left for the fetch path. */
  tooLarge: K[];
}

/**
 * Splits items, in order, into bodies `{"events":[…],"token":"…"}` each strictly under maxBytes.
 * The body is assembled from the pre-serialised events, so its size is known exactly without
 * serialising twice.
 */
export function planBeaconChunks<K>(
  items: readonly BeaconItem<K>[],
  token: string | undefined,
  maxBytes: number,
): BeaconPlan<K> {
  const tail = token === undefined ? '}' : `,"token":${JSON.stringify(token)}}`;
  const head = '{"events":[';
  const envelope = utf8Bytes(head) + utf8Bytes(']' + tail);
  const chunks: BeaconChunk<K>[] = [];
  const tooLarge: K[] = [];
  let keys: K[] = [];
  let parts: string[] = [];
  let size = envelope;

  const close = () => {
    if (parts.length === 0) return;
    chunks.push({ keys, body: `${head}${parts.join(',')}]${tail}` });
    keys = [];
    parts = [];
    size = envelope;
  };

  for (const item of items) {
    const bytes = utf8Bytes(item.json);
    if (envelope + bytes >= maxBytes) {
      tooLarge.push(item.key);
      continue;
    }
    const added = bytes + (parts.length > 0 ? 1 : 0); // the comma
    if (size + added >= maxBytes) close();
    size += bytes + (parts.length > 0 ? 1 : 0);
    keys.push(item.key);
    parts.push(item.json);
  }
  close();
  return { chunks, tooLarge };
}
