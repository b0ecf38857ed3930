import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// Sidecars over one store on PostgreSQL: what one commits, the others'
/// memory tiers drop — just the keys it names, or everything when it
/// changed anything else — and when they look, as `PostgresCoherence` says.
final class PostgreSQLCoherenceTests: PostgresTestCase {
    private var stores: [Store] = []

    override func tearDownWithError() throws {
        for s in stores { s.close() }
        stores = []
        try super.tearDownWithError()
    }

    private func sidecar(_ coherence: PostgresCoherence = .strict) throws -> Store {
        let store = try Store(PostgresStore.open(url: url, schema: schema, coherence: coherence))
        stores.append(store)
        return store
    }

    private func cache(_ store: Store, _ name: String = "c") throws -> Cache {
        try store.open(name, change: CacheConfigChange()).cache
    }

    private func roundTrips(_ store: Store) throws -> Int {
        try XCTUnwrap(store.database as? PostgresSQLConnection).connection.roundTrips
    }

    func testAnotherSidecarsWriteDropsJustTheKeysItNamed() throws {
        let a = try sidecar(), b = try sidecar()
        let ca = try cache(a), other = try cache(a, "other")
        for k in ["k1", "k2"] { try ca.put(k, "old") }
        try other.put("o", "1")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try cache(b), otherB = try cache(b, "other")
        XCTAssertEqual(try cb.text("k1"), "old")
        XCTAssertEqual(try cb.text("k2"), "old")
        XCTAssertEqual(try otherB.text("o"), "1")
        XCTAssertEqual(cb.diskTotals.count, 2)

        try ca.put("k1", "new")
        try ca.put("k3", "added")
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cb.lookup("k2")?.tier, .memory, "a key the other sidecar did not write stays")
        XCTAssertEqual(try otherB.lookup("o")?.tier, .memory, "so does every entry of another cache")
        XCTAssertEqual(try cb.lookup("k1")?.tier, .disk)
        XCTAssertEqual(try cb.text("k1"), "new")
        XCTAssertEqual(cb.diskTotals.count, 3, "totals are read again")

        XCTAssertTrue(try ca.remove(EntryKey(group: "g", key: "k2")))
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertNil(try cb.text("k2"), "a removal is a change too")
        XCTAssertEqual(cb.diskTotals.count, 2)
    }

    func testAnythingButEntriesDropsEverything() throws {
        let a = try sidecar(), b = try sidecar()
        try cache(a).put("k", "v")
        try cache(a, "other").put("o", "1")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try cache(b), otherB = try cache(b, "other")
        XCTAssertEqual(try cb.text("k"), "v")
        XCTAssertEqual(try otherB.text("o"), "1")

        // A group cleared: the whole cache's entries, and only that cache's.
        _ = try cache(a).clear(group: "g", tier: .disk)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertNil(try cb.text("k"))
        XCTAssertEqual(try otherB.lookup("o")?.tier, .memory)

        // New settings: everything.
        var change = CacheConfigChange()
        change.diskMaxCount = 5
        _ = try a.open("c", change: change)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try otherB.lookup("o")?.tier, .disk)
        XCTAssertNil(try cb.text("k"))
        XCTAssertEqual(cb.config.disk.maxCount, 5, "settings are read again")
    }

    /// Entity records are read from their tables every time: another
    /// sidecar's upserts and deletes of them leave memory tiers alone.
    func testEntityRecordsChangedElsewhereLeaveMemoryTiersAlone() throws {
        let a = try sidecar(), b = try sidecar()
        try a.define(bandsModel())
        try cache(a).put("k", "v")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try cache(b)
        XCTAssertEqual(try cb.text("k"), "v")
        try a.upsert("Band", japan)
        _ = try a.deleteRecord("Band", id: "Japan")
        try a.upsert("Band", japan)
        try a.commit()
        try b.noticeForeignWrites()
        XCTAssertEqual(try cb.lookup("k")?.tier, .memory)
        XCTAssertEqual(try b.record("Band", "Japan")?["formed"], 1974)
    }

    /// A sidecar that looks after the records it missed were deleted forgets everything.
    func testRecordsDeletedBeforeALookMeanEverything() throws {
        let a = try sidecar(), b = try sidecar()
        try cache(a).put("k", "v")
        try cache(a, "other").put("o", "1")
        try a.commit()
        try b.noticeForeignWrites()
        let otherB = try cache(b, "other")
        XCTAssertEqual(try otherB.text("o"), "1")
        try cache(a).put("k", "w")
        try a.commit()
        try connect().execute("DELETE FROM changes")
        try b.noticeForeignWrites()
        XCTAssertEqual(try otherB.lookup("o")?.tier, .disk)
    }

    func testStrictLooksEveryBurstAndNeverServesStale() throws {
        let a = try sidecar(), b = try sidecar(.strict)
        try cache(a).put("k", "1")
        try a.commit()
        try b.noticeForeignWrites()
        let cb = try cache(b)
        XCTAssertEqual(try cb.text("k"), "1")
        try b.noticeForeignWrites()
        let before = try roundTrips(b)
        try b.noticeForeignWrites()
        XCTAssertEqual(try roundTrips(b) - before, 1, "one look, nothing new")
        for n in 2...20 {
            try cache(a).put("k", "\(n)")
            try a.commit()
            try b.noticeForeignWrites()
            XCTAssertEqual(try cb.text("k"), "\(n)")
        }
    }

    func testNotifyLooksOnlyWhenACommitIsNotified() throws {
        let a = try sidecar(), b = try sidecar(.notify)
        XCTAssertEqual(PostgresStore.coherence(of: b.otherWriters), .notify)
        try cache(a).put("k", "1")
        try a.commit()
        Thread.sleep(forTimeInterval: 0.05)
        try b.noticeForeignWrites()
        let cb = try cache(b)
        XCTAssertEqual(try cb.text("k"), "1")
        let before = try roundTrips(b)
        for _ in 0..<10 { try b.noticeForeignWrites() }
        XCTAssertEqual(try cb.text("k"), "1")
        XCTAssertEqual(try roundTrips(b) - before, 0, "no commit, no round trip: memory hits never wait for the network")

        // b's own commits are no news to it.
        try cb.put("mine", "x")
        try b.commit()
        let afterOwn = try roundTrips(b)
        Thread.sleep(forTimeInterval: 0.05)
        try b.noticeForeignWrites()
        XCTAssertEqual(try roundTrips(b) - afterOwn, 0)

        try cache(a).put("k", "2")
        try a.commit()
        let deadline = Date().addingTimeInterval(5)
        while try cb.text("k") != "2" && Date() < deadline {
            try b.noticeForeignWrites()
        }
        XCTAssertEqual(try cb.text("k"), "2", "the notification arrived and the key was dropped")
    }

    func testPollLooksAtMostOncePerInterval() throws {
        let a = try sidecar(), b = try sidecar(.poll)
        try cache(a).put("k", "0")
        try a.commit()
        let cb = try cache(b)
        XCTAssertEqual(try cb.text("k"), "0")
        // The claim is about two looks less than an interval apart; on a
        // loaded machine a write and its commit between them can outlast the
        // interval, so attempts go on until one pair lands inside it.
        var written = "0", checked = false
        for attempt in 1...20 where !checked {
            Thread.sleep(forTimeInterval: 0.06)
            let started = ContinuousClock.now
            try b.noticeForeignWrites()
            XCTAssertEqual(try cb.text("k"), written, "a look after the interval catches up")
            let before = try roundTrips(b)
            written = String(attempt)
            try cache(a).put("k", written)
            try a.commit()
            try b.noticeForeignWrites()
            let looks = try roundTrips(b) - before
            guard ContinuousClock.now - started < PostgresCoherence.pollInterval else { continue }
            XCTAssertEqual(looks, 0, "within the interval, no look")
            XCTAssertEqual(try cb.text("k"), String(attempt - 1), "stale, as poll allows")
            checked = true
        }
        XCTAssertTrue(checked, "no two looks fell within one interval in 20 attempts")
        Thread.sleep(forTimeInterval: 0.06)
        try b.noticeForeignWrites()
        XCTAssertEqual(try cb.text("k"), written)
    }

    /// A sidecar that cannot look does not know what others wrote: it
    /// answers nothing from memory until it can look again.
    func testASidecarThatCannotLookServesNothingFromMemory() throws {
        let b = try sidecar(.strict)
        let cb = try cache(b)
        try cb.put("k", "v")
        try b.commit()
        XCTAssertEqual(try cb.lookup("k")?.tier, .memory)
        try PostgresTestServer.control("stop", "-m", "immediate")
        var restarted = false
        defer { if !restarted { try? PostgresTestServer.control("start") } }
        try b.noticeForeignWrites()
        assertUnavailable(assertThrowsStoreError("a read while the server is down") { () throws(StoreError) in
            try cb.get(EntryKey(group: "g", key: "k"))
        })
        try PostgresTestServer.control("start")
        restarted = true
        try XCTUnwrap(b.database as? PostgresSQLConnection).connection.reconnect(within: .seconds(10))
        try b.noticeForeignWrites()
        XCTAssertEqual(try cb.text("k"), "v")
    }

    /// A write transaction always catches up, whatever the mode: limits hold.
    func testAWriteCatchesUpInEveryMode() throws {
        for coherence in [PostgresCoherence.notify, .poll] {
            let a = try sidecar(), b = try sidecar(coherence)
            var change = CacheConfigChange()
            change.diskMaxCount = 3
            let name = "limited-\(coherence)"
            let ca = try a.open(name, change: change).cache
            try a.commit()
            let cb = try b.open(name, change: change).cache
            try b.noticeForeignWrites()
            for k in ["a", "b", "c"] { try ca.put(k, "v") }
            try a.commit()
            try cb.put("d", "v")
            try b.commit()
            XCTAssertEqual(cb.diskTotals.count, 3, "\(coherence)")
            let admin = try connect()
            XCTAssertEqual(try admin.query("SELECT count(*) FROM entries e JOIN caches c ON c.id = e.cache WHERE c.name = $1", [.text(name)]).int64(0, 0), 3)
        }
    }
}

final class ChangeRecordTests: XCTestCase {
    func testARecordReadsBackAsWritten() {
        var r = ChangeRecord()
        r.note(cache: 1, key: EntryKey(group: "g", key: "k"))
        r.note(cache: 1, key: EntryKey(group: "", key: "é\u{0}x"))
        r.note(cache: 2, key: EntryKey(group: "g", key: "k"))
        r.note(wholeCache: 3)
        XCTAssertEqual(ChangeRecord(encoded: r.encoded()), r)
        XCTAssertTrue(ChangeRecord(encoded: nil).everything)
        XCTAssertTrue(ChangeRecord(encoded: [0, 1, 2]).everything, "bytes that do not read as a record mean anything")
        XCTAssertNil(ChangeRecord.all.encoded())
    }

    func testTooManyKeysMeanEverything() {
        var r = ChangeRecord()
        for n in 0...ChangeRecord.mostKeys { r.note(cache: 1, key: EntryKey(group: "g", key: "\(n)")) }
        XCTAssertTrue(r.everything)
    }

    func testAWholeCacheTakesInItsKeys() {
        var r = ChangeRecord()
        r.note(cache: 1, key: EntryKey(group: "g", key: "k"))
        r.note(wholeCache: 1)
        r.note(cache: 1, key: EntryKey(group: "g", key: "j"))
        XCTAssertEqual(r.keys[1], nil)
        XCTAssertTrue(r.touches(cache: 1))
        XCTAssertFalse(r.touches(cache: 2))
    }
}
