// Message framing shared by the client and the transcript replayer.
//
// `lines`: one JSON text per line, LF-terminated (a CR before the LF is
// dropped, whitespace-only lines are ignored). `content-length`: the Language
// Server Protocol's base protocol (`Content-Length: N\r\n\r\n` then N bytes).

import { StringDecoder } from 'node:string_decoder';

export const FRAMINGS = ['lines', 'content-length'];

/** Frames one message body (a string) for writing. */
export function frame(text, framing = 'lines') {
  if (framing === 'content-length') {
    return `Content-Length: ${Buffer.byteLength(text, 'utf8')}\r\n\r\n${text}`;
  }
  return text + '\n';
}

/**
 * Splits a byte stream into message bodies (strings). `onMessage(text)` runs
 * once per message; `onError(err)` for a malformed Content-Length header.
 */
export class MessageReader {
  #framing;
  #onMessage;
  #onError;
  // lines
  #decoder = new StringDecoder('utf8');
  #text = '';
  // content-length
  #bytes = Buffer.alloc(0);
  #bodyLength = -1;

  constructor(framing, onMessage, onError = () => {}) {
    if (!FRAMINGS.includes(framing)) throw new TypeError(`unknown framing ${framing}; use ${FRAMINGS.join(' or ')}`);
    this.#framing = framing;
    this.#onMessage = onMessage;
    this.#onError = onError;
  }

  push(chunk) {
    if (this.#framing === 'lines') this.#pushLines(this.#decoder.write(chunk));
    else this.#pushContentLength(chunk);
  }

  /** The input ended: a last line without LF still counts. Returns leftover bytes of an unfinished frame, if any. */
  end() {
    if (this.#framing === 'lines') {
      const rest = this.#text + this.#decoder.end();
      this.#text = '';
      if (rest.trim() !== '') this.#onMessage(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
      return 0;
    }
    return this.#bytes.length;
  }

  #pushLines(text) {
    let start = 0;
    let buffered = this.#text;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      let line = buffered + text.slice(start, nl);
      buffered = '';
      start = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() === '') continue;
      this.#onMessage(line);
    }
    this.#text = buffered + text.slice(start);
  }

  #pushContentLength(chunk) {
    this.#bytes = this.#bytes.length ? Buffer.concat([this.#bytes, chunk]) : chunk;
    for (;;) {
      if (this.#bodyLength < 0) {
        const end = this.#bytes.indexOf('\r\n\r\n');
        if (end < 0) return;
        const header = this.#bytes.subarray(0, end).toString('latin1');
        this.#bytes = this.#bytes.subarray(end + 4);
        let length = -1;
        for (const line of header.split('\r\n')) {
          const m = /^content-length:\s*(\d+)\s*$/i.exec(line);
          if (m) length = Number(m[1]);
        }
        if (length < 0) {
          this.#onError(new Error(`a header without Content-Length: ${JSON.stringify(header)}`));
          continue;
        }
        this.#bodyLength = length;
      }
      if (this.#bytes.length < this.#bodyLength) return;
      const body = this.#bytes.subarray(0, this.#bodyLength).toString('utf8');
      this.#bytes = this.#bytes.subarray(this.#bodyLength);
      this.#bodyLength = -1;
      this.#onMessage(body);
    }
  }
}
