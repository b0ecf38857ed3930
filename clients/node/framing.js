// Message framing: how message bodies become bytes on the pipe and back.
//
// `lines`: one JSON text per line. A message ends at LF (0x0A); a CR (0x0D)
// right before the LF is not part of it, and a line holding only spaces,
// tabs or CRs is skipped. JSON text never holds a raw LF, so a body never
// needs escaping. `content-length`: the Language Server Protocol's base
// protocol, `Content-Length: N\r\n\r\n` then N bytes of UTF-8 (other header
// lines are ignored).
//
// Bytes are decoded once, straight from the chunks the pipe delivered into
// the message's string: a message inside one chunk is never copied before
// that, and one spread over several chunks is joined once, when complete.

/** @typedef {'lines' | 'content-length'} Framing */

/** The framings the server speaks. */
export const FRAMINGS = Object.freeze(/** @type {Framing[]} */ (['lines', 'content-length']));

const LF = 0x0a;
const CR = 0x0d;
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Frames one message body for writing.
 * @param {string} text the message body, one JSON text
 * @param {Framing} [framing]
 * @returns {string}
 */
export function frame(text, framing = 'lines') {
  if (framing === 'content-length') return `Content-Length: ${Buffer.byteLength(text, 'utf8')}\r\n\r\n${text}`;
  return text + '\n';
}

/** Queued text beyond this many characters is encoded to bytes at once. */
const QUEUED_CHARS = 16384;

/**
 * Collects framed message bodies until they are taken, to go out in one
 * write. A few stay one string; past QUEUED_CHARS they are encoded into a
 * growing Buffer as they come, so a long pipeline does not keep a string per
 * message alive until the write (the garbage collector would copy each of
 * them while they wait).
 */
export class MessageWriter {
  #framing;
  #text = '';
  /** @type {Buffer | null} */
  #bytes = null;
  #length = 0;

  /** @param {Framing} [framing] */
  constructor(framing = 'lines') {
    if (!FRAMINGS.includes(framing)) throw new TypeError(`unknown framing ${framing}; use ${FRAMINGS.join(' or ')}`);
    this.#framing = framing;
  }

  /** Whether nothing is queued. */
  get empty() {
    return this.#text.length === 0 && this.#length === 0;
  }

  /**
   * Queues one message body.
   * @param {string} text
   */
  add(text) {
    this.#text += this.#framing === 'lines' ? text + '\n' : frame(text, this.#framing);
    if (this.#text.length > QUEUED_CHARS) this.#encode();
  }

  /**
   * Everything queued, framed, and empties the queue: a string, or a Buffer
   * that is the caller's from now on.
   * @returns {string | Buffer}
   */
  take() {
    if (this.#bytes === null) {
      const text = this.#text;
      this.#text = '';
      return text;
    }
    this.#encode();
    const bytes = this.#bytes.subarray(0, this.#length);
    this.#bytes = null;
    this.#length = 0;
    return bytes;
  }

  /** Drops everything queued. */
  clear() {
    this.#text = '';
    this.#bytes = null;
    this.#length = 0;
  }

  #encode() {
    const text = this.#text;
    this.#text = '';
    // A UTF-16 code unit never takes more than three bytes of UTF-8.
    const needed = this.#length + text.length * 3;
    if (this.#bytes === null || needed > this.#bytes.length) {
      const bytes = Buffer.allocUnsafe(Math.max(needed, 2 * (this.#bytes?.length ?? 0), 4 * QUEUED_CHARS));
      this.#bytes?.copy(bytes, 0, 0, this.#length);
      this.#bytes = bytes;
    }
    this.#length += this.#bytes.write(text, this.#length, 'utf8');
  }
}

/** Whether a line holds nothing but spaces, tabs and CRs. */
function isBlank(bytes, start, end) {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  }
  return true;
}

/**
 * Splits a byte stream into message bodies. `onMessage(text)` runs once per
 * message, in order; `onError(err)` for a Content-Length header that is
 * malformed (the reader then looks for the next header).
 */
export class MessageReader {
  #framing;
  #onMessage;
  #onError;
  /** Chunks holding the start of a message not complete yet, and their total length. */
  #held = [];
  #heldLength = 0;
  /** content-length: the body length of the frame being read, or -1 while reading its header. */
  #bodyLength = -1;

  /**
   * @param {Framing} framing
   * @param {(text: string) => void} onMessage
   * @param {(err: Error) => void} [onError]
   */
  constructor(framing, onMessage, onError = () => {}) {
    if (!FRAMINGS.includes(framing)) throw new TypeError(`unknown framing ${framing}; use ${FRAMINGS.join(' or ')}`);
    this.#framing = framing;
    this.#onMessage = onMessage;
    this.#onError = onError;
  }

  /**
   * Reads the next chunk from the pipe.
   * @param {Buffer} chunk
   */
  push(chunk) {
    if (this.#framing === 'lines') this.#pushLines(chunk);
    else this.#pushContentLength(chunk);
  }

  /**
   * The input ended. In line framing a last line without LF still counts.
   * @returns {number} the bytes of an unfinished message left over (0 if none)
   */
  end() {
    const rest = this.#takeHeld();
    if (this.#framing === 'lines' && rest.length > 0) {
      this.#emitLine(rest, 0, rest.length);
      return 0;
    }
    return rest.length;
  }

  #hold(bytes) {
    if (bytes.length === 0) return;
    this.#held.push(bytes);
    this.#heldLength += bytes.length;
  }

  #takeHeld() {
    const held = this.#held.length === 1 ? this.#held[0] : Buffer.concat(this.#held, this.#heldLength);
    this.#held = [];
    this.#heldLength = 0;
    return held;
  }

  #emitLine(bytes, start, end) {
    if (end > start && bytes[end - 1] === CR) end--;
    if (end === start || (bytes[start] !== 0x7b && bytes[start] !== 0x5b && isBlank(bytes, start, end))) return;
    this.#onMessage(bytes.toString('utf8', start, end));
  }

  #pushLines(chunk) {
    let start = 0;
    let nl = chunk.indexOf(LF);
    if (nl < 0) return this.#hold(chunk);
    if (this.#heldLength > 0) {
      this.#hold(chunk.subarray(0, nl));
      const line = this.#takeHeld();
      this.#emitLine(line, 0, line.length);
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    while (nl >= 0) {
      this.#emitLine(chunk, start, nl);
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  #pushContentLength(chunk) {
    this.#hold(chunk);
    for (;;) {
      if (this.#bodyLength < 0) {
        let bytes = this.#held.length === 1 ? this.#held[0] : this.#takeHeld();
        const end = bytes.indexOf(HEADER_END);
        if (end < 0) {
          if (this.#held.length === 0) this.#hold(bytes);
          return;
        }
        const header = bytes.toString('latin1', 0, end);
        bytes = bytes.subarray(end + HEADER_END.length);
        this.#held = [];
        this.#heldLength = 0;
        this.#hold(bytes);
        const length = contentLength(header);
        if (length < 0) {
          this.#onError(new Error(`a header without Content-Length: ${JSON.stringify(header)}`));
          continue;
        }
        this.#bodyLength = length;
      }
      if (this.#heldLength < this.#bodyLength) return;
      const bytes = this.#held.length === 1 ? this.#held[0] : this.#takeHeld();
      const body = bytes.toString('utf8', 0, this.#bodyLength);
      const rest = bytes.subarray(this.#bodyLength);
      this.#held = [];
      this.#heldLength = 0;
      this.#hold(rest);
      this.#bodyLength = -1;
      this.#onMessage(body);
    }
  }
}

/** The value of a header's Content-Length line, or -1 when it has none. */
function contentLength(header) {
  let length = -1;
  for (const line of header.split('\r\n')) {
    const m = /^content-length:\s*(\d+)\s*$/i.exec(line);
    if (m) length = Number(m[1]);
  }
  return length;
}
