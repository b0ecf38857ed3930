import LarderStorage

/// A group of a cache and how many entries it holds.
public struct GroupCount: Sendable, Equatable {
    public let group: String
    public let count: Int

    public init(group: String, count: Int) {
        self.group = group
        self.count = count
    }

    /// Counts by group as the first `limit` groups in byte order.
    static func sorted(_ counts: [ExactString: Int], limit: Int) -> [GroupCount] {
        counts.sorted { $0.key.value.utf8.lexicographicallyPrecedes($1.key.value.utf8) }
            .prefix(limit).map { GroupCount(group: $0.key.value, count: $0.value) }
    }
}

extension Cache {
    /// The groups whose names start with `prefix`, in byte order, paged: at
    /// most `limit`, after `cursor`. Each counts its entries as `keys` lists
    /// them: a persistent cache's disk tier, a memory-only cache's memory
    /// tier, expired entries left out unless the cache returns them; a group
    /// with none left is not listed. A group's count leaves out its sub-groups
    /// (`a.b` of `a`): those are groups of their own.
    public func groups(prefix: String, after cursor: String?, limit: Int) throws(StoreError) -> [GroupCount] {
        guard try readyToRead() else { return [] }
        let validAt: Int64? = config.returnsExpired ? nil : context.clock.now
        if config.persistent {
            return try disk.groups(prefix: prefix, after: cursor, limit: limit, validAt: validAt, lifespan: config.lifespan)
        }
        // By bytes: two spellings of "é" are two groups, as they are on disk.
        var counts: [ExactString: Int] = [:]
        for k in memory.keys() {
            let group = k.group
            guard group.utf8.starts(with: prefix.utf8) else { continue }
            if let cursor, !cursor.utf8.lexicographicallyPrecedes(group.utf8) { continue }
            if let validAt, let e = memory.peek(k), e.isExpired(at: validAt, lifespan: config.lifespan) { continue }
            counts[ExactString(group), default: 0] += 1
        }
        return GroupCount.sorted(counts, limit: limit)
    }
}

extension DiskTier {
    /// Groups starting with `prefix` after `cursor`, with their entry counts;
    /// with `validAt`, expired entries are not counted.
    func groups(prefix: String, after cursor: String?, limit: Int, validAt now: Int64?,
                lifespan: Int64) throws(StoreError) -> [GroupCount] {
        if sealer != nil { return try sealedGroups(prefix: prefix, after: cursor, limit: limit, validAt: now, lifespan: lifespan) }
        // Two statements, not one with "?3 IS NULL OR …": SQLite then seeks to
        // the cursor rather than counting every group before it again.
        let valid = "(validated_at + COALESCE(ttl, ?5) > ?4 OR COALESCE(ttl, ?5) <= 0 OR ?4 IS NULL)"
        // The default group "" has no bytes to compare: with no prefix, every group is in.
        let prefixed = "grp >= ?2 AND (?2 = '' OR substr(CAST(grp AS \(db.dialect.bytes)), 1, length(CAST(?2 AS \(db.dialect.bytes)))) = CAST(?2 AS \(db.dialect.bytes)))"
        let s: any SQLStatement
        if let cursor {
            s = try db.statement("""
                SELECT grp, COUNT(*) FROM entries WHERE cache = ?1 AND grp > ?3 AND \(prefixed) AND \(valid)
                GROUP BY grp ORDER BY grp LIMIT ?6
                """)
            s.bind(3, cursor)
        } else {
            s = try db.statement("""
                SELECT grp, COUNT(*) FROM entries WHERE cache = ?1 AND \(prefixed) AND \(valid)
                GROUP BY grp ORDER BY grp LIMIT ?6
                """)
        }
        s.bind(1, cacheID).bind(2, prefix).bind(5, lifespan).bind(6, limit)
        if let now { s.bind(4, now) } else { s.bindNull(4) }
        defer { s.reset() }
        var groups: [GroupCount] = []
        while try s.step() { groups.append(GroupCount(group: try s.string(0), count: try s.int(1))) }
        return groups
    }

    /// `groups` of an encrypted cache: its groups are stored as tokens, so
    /// every valid row's sealed key is opened and counted here. A page costs
    /// a pass over the whole cache.
    private func sealedGroups(prefix: String, after cursor: String?, limit: Int,
                              validAt now: Int64?, lifespan: Int64) throws(StoreError) -> [GroupCount] {
        let s = try db.statement("""
            SELECT grp, key, sealed_key FROM entries
            WHERE cache = ?1 AND (validated_at + COALESCE(ttl, ?3) > ?2 OR COALESCE(ttl, ?3) <= 0 OR ?2 IS NULL)
            """)
        s.bind(1, cacheID).bind(3, lifespan)
        if let now { s.bind(2, now) } else { s.bindNull(2) }
        defer { s.reset() }
        var counts: [ExactString: Int] = [:]
        while try s.step() {
            let group = try key(from: s, columns: 0, sealed: 2).group
            guard group.utf8.starts(with: prefix.utf8) else { continue }
            if let cursor, !cursor.utf8.lexicographicallyPrecedes(group.utf8) { continue }
            counts[ExactString(group), default: 0] += 1
        }
        return GroupCount.sorted(counts, limit: limit)
    }
}
