// Options objects are checked before anything is sent: a key a method does
// not know is refused with the name most likely meant, never dropped.

/** A name folded for comparison: lower case, without `_` and `-`. */
function fold(name) {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Optimal string alignment distance: Levenshtein, where swapping two neighbours counts as one edit. */
function distance(a, b) {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
      rows[i][j] = d;
    }
  }
  return rows[a.length][b.length];
}

/**
 * The name among `known` that `name` most likely meant, or undefined: the
 * one that is the same once case, `_` and `-` are ignored (`max_count` for
 * `maxCount`), else the closest within about one edit per three characters
 * of `name` (at least one, at most three; `tll` for `ttl`, `cahce` for
 * `cache`), the first listed on a tie. The server suggests names by the same
 * rule. Nothing when nothing is close: a wrong guess misleads more than none.
 */
export function nearestName(name, known) {
  const wanted = fold(String(name));
  const same = known.find((k) => fold(k) === wanted);
  if (same !== undefined) return same;
  const allowed = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  let best;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(wanted, fold(k));
    if (d <= allowed && d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/**
 * `options` checked against the keys `method` knows: undefined stands for
 * `{}`; anything but an object, or an object with another key, throws a
 * TypeError naming the method, the key and the known key most likely meant
 * (`cache.set: unknown option tll (did you mean ttl?)`), or, when none is
 * close, every known key. Returns the options, to destructure.
 */
export function checkOptions(method, options, known, what = 'option') {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const type = options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options;
    throw new TypeError(`${method}: ${what}s must be an object such as {${known[0]}}, not ${type}`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const meant = nearestName(key, known);
    const help = meant !== undefined ? `did you mean ${meant}?` : `known: ${known.join(', ')}`;
    throw new TypeError(`${method}: unknown ${what} ${key} (${help})`);
  }
  return options;
}

/**
 * Copies the members of `from` named in `names` that are not undefined onto
 * `to`: an option left out is never sent, so the server applies its default.
 * @template {object} T
 * @param {T} to
 * @param {object | undefined} from
 * @param {readonly string[]} names
 * @returns {T}
 */
export function pick(to, from, names) {
  if (from) for (const n of names) if (from[n] !== undefined) to[n] = from[n];
  return to;
}
