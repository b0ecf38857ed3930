import LarderStorage

/// PostgreSQL's conditional writes and increments (SPEC 6.14): one statement
/// each that checks the condition (or reads the counter) as it writes, so
/// that its answer can wait with the burst's other statements, as a plain
/// set's does (`CacheSQL.write`). Checking first with a locked read cost
/// two round trips of their own (the queued statements, then the read): a
/// conditional set ran at 0.13× a plain set's rate, an increment at 0.085×
/// (larder-bench, durable PostgreSQL on a store's socket).
///
/// Each takes `Insert`'s parameters and those of `Checked`, and answers one
/// row (`Checked.Column`): the row as it stood before the statement, locked
/// (`before`), and what was written, if anything. A row that another server
/// inserted after the statement's snapshot is not among `before`'s: where
/// that is so and nothing was written, the caller reads it afterwards.
extension CacheSQL {
    public enum Checked {
        /// The revision a write's condition expects (`ifRevision`).
        @inlinable public static var revision: Int32 { Insert.sealedKey + 1 }
        /// The cache's lifespan, for rows without a ttl of their own.
        @inlinable public static var lifespan: Int32 { revision + 1 }
        /// A row is live if it expires after this: now, or -2^63 where the
        /// cache returns expired entries.
        @inlinable public static var liveAfter: Int32 { revision + 2 }
        /// An increment's amount (`by`)...
        @inlinable public static var by: Int32 { revision + 3 }
        /// ...and what it adds to where there is no live entry (`initial`).
        @inlinable public static var initial: Int32 { revision + 4 }

        /// The answer's columns.
        public enum Column: Int32 {
            /// The written row's id; NULL if nothing was written.
            case written
            /// The row before: id, revision, validated_at, ttl, size; NULL if there was none.
            case id, revision, validatedAt, ttl, size
            /// An increment's sum as stored (NULL if nothing was written).
            case count
            /// An increment's: the kind of the row before and the first
            /// `Cache.counterTextLimit` + 1 bytes of its value, which say why
            /// it was not a counter.
            case kind, head
        }
    }

    /// The key's row as the statement found it, locked until the
    /// transaction ends. PostgreSQL reads it again if another transaction
    /// changed it meanwhile, so that `before` is its latest version.
    private static func before(_ more: String = "") -> String {
        "before AS (SELECT id, revision, validated_at, ttl, size\(more) FROM entries WHERE cache = ?1 AND grp = ?2 AND key = ?3 FOR UPDATE)"
    }

    /// Whether the row `t` holds a live entry (SPEC 6.14), as
    /// `Entry.isExpired` decides it: a ttl of its own, else the cache's
    /// lifespan; 0 or less never expires.
    private static func live(_ t: String) -> String {
        "(COALESCE(\(t).ttl, ?\(Checked.lifespan)) <= 0 OR \(t).validated_at + COALESCE(\(t).ttl, ?\(Checked.lifespan)) > ?\(Checked.liveAfter))"
    }

    /// The answer: `Checked.Column`'s, always one row.
    private static func answer(_ more: String = "") -> String {
        """
        SELECT (SELECT id FROM written), before.id, before.revision, before.validated_at, before.ttl, before.size\(more)
        FROM (SELECT 1) AS one LEFT JOIN before ON true
        """
    }

    /// `ifRevision`: the row is replaced only if it holds a live entry at that revision.
    static let writeIfRevision = """
        WITH \(before()),
        written AS (UPDATE entries SET \(EntryColumn.allCases.map { "\($0.name) = ?\(Insert.entry + $0.rawValue)" }.joined(separator: ", "))
            FROM before WHERE entries.id = before.id AND before.revision = ?\(Checked.revision) AND \(live("before"))
            RETURNING entries.id)
        """ + "\n" + answer()

    /// `ifAbsent`: a new row, or one over a row whose entry has expired.
    static func writeIfAbsent(sealed: Bool) -> String {
        let insert = sealed ? insertSealed : CacheSQL.insert
        let set = upsertSet + (sealed ? ", sealed_key = excluded.sealed_key" : "")
        return """
            WITH \(before()),
            written AS (\(numbered(insert))\(set)
                WHERE NOT \(live("entries"))
                RETURNING id)
            """ + "\n" + answer()
    }

    /// The sum an increment stores over the row `entries`: `initial` + `by`
    /// where the entry is not live, else its integer + `by`; NULL where the
    /// value is not an integer or the sum is outside ±2^53 (JSON's exact
    /// integers). The value is read as `Cache.integer` reads it: a JSON
    /// number of at most `Cache.counterTextLimit` bytes whose value is an
    /// integer ("5", "-0", "5.0", "5e2"), its exponent at most 4 digits
    /// after any zeros; the pattern comes first, so that the cast never
    /// meets text it refuses or a number too large for it.
    private static let sum = """
        (SELECT CASE WHEN n = trunc(n) AND abs(n) <= \(Cache.largestCount) AND abs(n + ?\(Checked.by)) <= \(Cache.largestCount)
                THEN CAST(n + ?\(Checked.by) AS bigint) END FROM (SELECT
            CASE WHEN NOT \(live("entries")) THEN CAST(?\(Checked.initial) AS numeric)
                 WHEN entries.kind = \(Entry.Kind.json.rawValue) AND entries.size <= \(Cache.counterTextLimit)
                      AND convert_from(entries.value, 'UTF8') ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?0*[0-9]{1,4})?$'
                 THEN CAST(convert_from(entries.value, 'UTF8') AS numeric) END AS n) AS counted)
        """

    /// An increment: a new row holding `initial` + `by` (bound as the
    /// entry's value, which the caller has checked is within range), or
    /// the sum over the row there. Where the sum is NULL nothing is written.
    static let increment = """
        WITH \(before(", kind, substring(value from 1 for \(Cache.counterTextLimit + 1)) AS head")),
        written AS (\(numbered(CacheSQL.insert)) ON CONFLICT (cache, grp, key) DO UPDATE SET \(EntryColumn.allCases.map { c in
            switch c {
            case .value: "value = convert_to(CAST(\(sum) AS text), 'UTF8')"
            case .size: "size = octet_length(CAST(\(sum) AS text))"
            default: "\(c.name) = excluded.\(c.name)"
            }
        }.joined(separator: ", "))
            WHERE \(sum) IS NOT NULL
            RETURNING id, CAST(convert_from(value, 'UTF8') AS bigint) AS count)
        """ + "\n" + answer(", (SELECT count FROM written), before.kind, before.head")

    /// `sql` with its placeholders numbered, `?1`, `?2`…: a statement that
    /// also uses numbered ones cannot mix in plain `?`.
    private static func numbered(_ sql: String) -> String {
        var n = 0
        return sql.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { i, part in
            guard i > 0 else { return String(part) }
            n += 1
            return "?\(n)" + part
        }.joined()
    }
}
