/** One dispatched server-sent event: its name ('message' when unnamed) and its data lines joined by '\n'. */
export interface ServerEvent {
  event: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (the WHATWG rules that matter here): lines end with CRLF, LF or CR,
 * a blank line dispatches, ':' starts a comment (the heartbeat), `event` names it, `data` lines accumulate.
 * Chunks may cut anywhere, even between CR and LF, so a partial line waits for the next chunk.
 */
export class EventStreamParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #pendingCr = false;

  constructor(private readonly dispatch: (event: ServerEvent) => void) {}

  push(chunk: string): void {
    let text = chunk;
    // A CR that ended the previous chunk already closed its line: its LF, if it comes now, is part of it.
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    const lines = this.#buffer.split(/\r\n|\n|\r/);
    this.#buffer = lines.pop() ?? '';
    if (this.#buffer === '' && text.endsWith('\r')) this.#pendingCr = true;
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#data.length > 0) this.dispatch({ event: this.#event || 'message', data: this.#data.join('\n') });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    // `id` and `retry` are not used: the client decides its own reconnection delays.
  }
}

/** Reads a byte stream to its end (or until `signal` aborts), feeding the parser; `onBytes` hears every chunk. */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: ServerEvent) => void,
  { signal, onBytes }: { signal?: AbortSignal; onBytes?: () => void } = {},
): Promise<void> {
  const parser = new EventStreamParser(onEvent);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes?.();
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  } finally {
    signal?.removeEventListener('abort', cancel);
    try {
      reader.releaseLock();
    } catch {
      /* a read still settling after a cancel: the stream is done with anyway */
    }
  }
}
