// Keys for encrypted caches, checked here before they are sent: 32 bytes
// (a Buffer, any Uint8Array, an ArrayBuffer) or their standard base64 as a
// string, sent as canonical base64. The server would refuse any other key
// with InvalidParams; checked here, the error names the option at fault
// before anything is sent or started.

/** A key's length in bytes (AES-256). */
export const KEY_BYTES = 32;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * `key` as the protocol takes it: standard padded base64 of 32 bytes.
 * Throws a TypeError for anything but bytes or a string, and a RangeError
 * for bytes of another length or a string that is not base64 of 32 bytes;
 * `name` is the option the message names.
 * @param {unknown} key
 * @param {string} name
 * @returns {string}
 */
export function encodeKey(key, name) {
  let bytes;
  if (key instanceof Uint8Array) bytes = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  else if (key instanceof ArrayBuffer) bytes = Buffer.from(key);
  else if (typeof key === 'string') {
    const text = key.trim();
    if (text.length % 4 !== 0 || !BASE64.test(text)) {
      throw new RangeError(`${name} is not standard base64 (A-Z, a-z, 0-9, +, / and = padding)`);
    }
    bytes = Buffer.from(text, 'base64');
    if (bytes.length !== KEY_BYTES) throw new RangeError(`${name} must be base64 of ${KEY_BYTES} bytes, not of ${bytes.length}`);
    return bytes.toString('base64');
  } else {
    const type = key === null ? 'null' : typeof key === 'object' ? key.constructor?.name ?? 'an object' : typeof key;
    throw new TypeError(`${name} must be ${KEY_BYTES} bytes (a Buffer or Uint8Array) or their base64 as a string, not ${type}`);
  }
  if (bytes.length !== KEY_BYTES) throw new RangeError(`${name} must be ${KEY_BYTES} bytes, not ${bytes.length}`);
  return bytes.toString('base64');
}

/**
 * `initialize`'s `encryption`: `{key?, keys?}` from a key for every
 * encrypted cache and keys for named ones, or undefined when neither is given.
 * @param {unknown} key
 * @param {unknown} keys
 * @returns {{key?: string, keys?: Record<string, string>} | undefined}
 */
export function encryptionParams(key, keys) {
  const params = {};
  if (key !== undefined) params.key = encodeKey(key, 'encryptionKey');
  if (keys !== undefined) {
    if (keys === null || typeof keys !== 'object' || Array.isArray(keys) || keys instanceof Uint8Array) {
      throw new TypeError('encryptionKeys must be an object mapping cache names to keys, such as {secrets: key}');
    }
    const entries = keys instanceof Map ? [...keys] : Object.entries(keys);
    params.keys = {};
    for (const [cache, value] of entries) {
      if (typeof cache !== 'string') throw new TypeError(`encryptionKeys: cache names must be strings, not ${typeof cache}`);
      params.keys[cache] = encodeKey(value, `encryptionKeys[${JSON.stringify(cache)}]`);
    }
  }
  return Object.keys(params).length > 0 ? params : undefined;
}
