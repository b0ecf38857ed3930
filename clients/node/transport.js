// The byte side of a connection to `larder`: the process, the framing of
// its stdin and stdout, and writes that wait for the pipe to drain. It hands
// each message body it reads to its owner and knows nothing of JSON-RPC.

import { spawn as spawnProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageReader, MessageWriter } from './framing.js';
import { SidecarExited } from './errors.js';

/** @typedef {import('./framing.js').Framing} Framing */

const STDERR_TAIL_CHARS = 8192;

/** Where a `larder` executable may be shipped inside this package. */
export const PACKAGED_BINARY = fileURLToPath(new URL('./bin/larder', import.meta.url));

function isExecutableFile(path) {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The `larder` executable to run, looked for in this order: `binary` if
 * given, else `$LARDER_BIN` if set, else the one packaged at `bin/larder`
 * inside this package, else `larder` in a directory of `$PATH`.
 *
 * @param {string} [binary]
 * @param {{env?: Record<string, string | undefined>}} [options] the environment to read `LARDER_BIN` and `PATH` from (default `process.env`)
 * @returns {string}
 * @throws {Error} `code: 'ENOENT'` when none is found; the message names every place tried
 */
export function findBinary(binary, { env = process.env } = {}) {
  if (binary) return String(binary);
  if (env.LARDER_BIN) return env.LARDER_BIN;
  if (isExecutableFile(PACKAGED_BINARY)) return PACKAGED_BINARY;
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, 'larder');
    if (isExecutableFile(candidate)) return candidate;
  }
  const err = new Error(
    'cannot find the larder executable: no binary option, $LARDER_BIN is not set, ' +
      `no executable at ${PACKAGED_BINARY}, and no larder in $PATH (${dirs.join(delimiter) || 'empty'})`,
  );
  /** @type {any} */ (err).code = 'ENOENT';
  throw err;
}

/**
 * @typedef {object} TransportOptions
 * @property {Framing} [framing] 'lines' (default) or 'content-length'
 * @property {'inherit' | 'pipe'} [stderr] 'inherit' copies the sidecar's stderr to this process's
 * @property {(text: string) => void} [onMessage] called with each message body read
 * @property {(err: Error) => void} [onError] a malformed frame
 * @property {(status: {exitCode: number | null, signal: string | null}) => void} [onExit] once the process is gone
 */

/**
 * A running `larder` process and its framed pipes. `send` queues a message
 * body; everything queued until the event loop's next turn leaves in one
 * write, and nothing more is written while the pipe has not drained.
 */
export class Transport {
  #child;
  #framing;
  #reader;
  #writer;
  #flushScheduled = false;
  #flushSoon = () => {
    this.#flushScheduled = false;
    this.flush();
  };
  #waitingForDrain = false;
  #stderrTail = '';
  #forwardStderr;
  #exitStatus = null;
  #gone = null;
  #resolveGone;
  #done;

  /**
   * Starts `binary` with `args` and wraps it.
   * @param {string} binary
   * @param {string[]} args
   * @param {TransportOptions & {env?: Record<string, string | undefined>, cwd?: string}} [options]
   * @returns {Transport}
   */
  static spawn(binary, args, options = {}) {
    const { env, cwd, ...rest } = options;
    const child = spawnProcess(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env ?? process.env, cwd });
    return new Transport(child, rest);
  }

  /**
   * Wraps a started child process whose stdio are pipes.
   * @param {import('node:child_process').ChildProcess} child
   * @param {TransportOptions} [options]
   */
  constructor(child, { framing = 'lines', stderr, onMessage = () => {}, onError = () => {}, onExit = () => {} } = {}) {
    this.#child = child;
    this.#framing = framing;
    this.#writer = new MessageWriter(framing);
    this.#forwardStderr = stderr === 'inherit';
    /** Called with each message body read. */
    this.onMessage = onMessage;
    /** Called with a malformed frame's error. */
    this.onError = onError;
    /** Called with `{exitCode, signal}` once the process is gone, before `done` resolves. */
    this.onExit = onExit;
    this.#reader = new MessageReader(framing, (text) => this.onMessage(text), (err) => this.onError(err));
    this.#done = new Promise((resolve) => (this.#resolveGone = resolve));
    child.stdout.on('data', (chunk) => this.#reader.push(chunk));
    child.stdout.on('end', () => this.#reader.end());
    child.stderr.on('data', (chunk) => {
      if (this.#forwardStderr) process.stderr.write(chunk);
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    child.stdin.on('error', () => {}); // EPIPE: the process's exit reports it
    child.on('error', (err) => this.#markGone({ message: `could not run ${child.spawnfile}: ${err.message}`, cause: err }));
    child.on('exit', (exitCode, signal) => {
      this.#exitStatus = { exitCode, signal };
      // 'close' follows once stdout is drained; do not wait for it forever.
      setTimeout(() => this.#markGone({ exitCode, signal }), 500).unref();
    });
    child.on('close', (exitCode, signal) => this.#markGone(this.#exitStatus ?? { exitCode, signal }));
  }

  /** @type {Framing} */
  get framing() {
    return this.#framing;
  }

  /** The process id (undefined if it could not start). */
  get pid() {
    return this.#child.pid;
  }

  /** Whether the process has ended (or never started). */
  get exited() {
    return this.#gone !== null;
  }

  /** The last few KB the process wrote to stderr. */
  get stderr() {
    return this.#stderrTail;
  }

  /**
   * Resolves with `{exitCode, signal}` once the process has ended.
   * @returns {Promise<{exitCode: number | null, signal: string | null}>}
   */
  get done() {
    return this.#done;
  }

  /** Resolves once the process has started; rejects with SidecarExited if it could not. */
  started() {
    return new Promise((resolve, reject) => {
      if (this.#child.pid !== undefined) return resolve();
      this.#child.once('spawn', resolve);
      this.#done.then(() => reject(this.exitedError()));
    });
  }

  /**
   * Queues one message body (without framing) to be written.
   * @param {string} text
   */
  send(text) {
    if (this.#gone) return;
    this.#writer.add(text);
    if (!this.#flushScheduled && !this.#waitingForDrain) {
      this.#flushScheduled = true;
      setImmediate(this.#flushSoon);
    }
  }

  /** Writes everything queued now, in one write, unless the pipe has not drained yet. */
  flush() {
    if (this.#waitingForDrain || this.#writer.empty) return;
    const chunk = this.#writer.take();
    const stdin = this.#child.stdin;
    if (this.#gone || !stdin.writable) return;
    if (!stdin.write(chunk)) {
      this.#waitingForDrain = true;
      stdin.once('drain', () => {
        this.#waitingForDrain = false;
        this.flush();
      });
    }
  }

  /** Writes what is queued, then closes the process's stdin (the server then ends). */
  end() {
    this.flush();
    if (this.#gone) return;
    if (this.#waitingForDrain) this.#child.stdin.once('drain', () => this.#child.stdin.end());
    else this.#child.stdin.end();
  }

  /**
   * Sends the process a signal unless it has ended.
   * @param {NodeJS.Signals} [signal]
   */
  kill(signal = 'SIGKILL') {
    if (!this.#gone && this.#exitStatus === null) this.#child.kill(signal);
  }

  /**
   * The error for calls that cannot be answered because the process is gone.
   * @param {string} [method] the method a call was waiting for
   * @returns {SidecarExited}
   */
  exitedError(method) {
    const { exitCode = null, signal = null, message, cause } = this.#gone ?? {};
    let text = message ?? (signal ? `larder was killed by ${signal}` : `larder exited with code ${exitCode}`);
    if (method) text += ` (while waiting for ${method})`;
    const tail = this.#stderrTail.trim();
    if (tail) text += `\nstderr:\n${tail}`;
    return new SidecarExited(text, { exitCode, signal, stderr: this.#stderrTail, cause });
  }

  #markGone({ exitCode = null, signal = null, message, cause }) {
    if (this.#gone) return;
    this.#gone = { exitCode, signal, message, cause };
    this.#writer.clear();
    this.onExit({ exitCode, signal });
    this.#resolveGone({ exitCode, signal });
  }
}
