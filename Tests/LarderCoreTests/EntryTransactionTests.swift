import XCTest
@testable import LarderCore
import LarderJSON
import LarderStorage

/// Transactions over several entries (SPEC 6.15): comparisons at one
/// instant, then one branch's operations in order, all or none.
final class EntryTransactionTests: StoreTestCase {
    private typealias T = EntryTransaction

    private func target(_ key: String, _ cache: String) -> T.Target { T.Target(cache: cache, key: EntryKey(group: "g", key: key)) }
    private func target(_ key: String, _ cache: Cache) -> T.Target { target(key, cache.name) }
    private func json(_ text: String) -> T.Action { .set(kind: .json, bytes: bytes(text), ttl: nil) }

    /// Runs `body` once with persistent caches ("a", "b") and once with memory-only ones.
    private func eachKindOfCache(_ body: (Store, Cache, Cache) throws -> Void) throws {
        for persistent in [true, false] {
            let store = try makeStore()
            let a = try openCache(store, persistent ? "a" : "memory a") { $0.persistent = persistent; $0.lifespan = 1000 }
            let b = try openCache(store, persistent ? "b" : "memory b") { $0.persistent = persistent; $0.lifespan = 1000 }
            try store.commit()
            try body(store, a, b)
            try store.commit()
        }
    }

    private func revision(_ r: T.OperationResult) -> Int64? {
        switch r {
        case .stored(let revision), .counted(_, let revision): return revision
        case .got(let found): return found?.entry.revision
        case .removed: return nil
        }
    }

    func testThenAppliesItsOperationsInOrderWhenEveryComparisonHolds() throws {
        try eachKindOfCache { store, a, b in
            let alice = try a.set(Cache.Write(key: EntryKey(group: "g", key: "alice"), kind: .json, bytes: bytes("100"), ttl: nil))
            try b.put("pending", "x")
            let t = T(compare: [T.Comparison(target("alice", a), .revision(alice)), T.Comparison(target("lock", a), .absent),
                                T.Comparison(target("alice", a), .value(.number(JSONNumber(validLiteral: "100.0")))),
                                T.Comparison(target("pending", b), .present)],
                      then: [T.Operation(target("alice", a), json("90")), T.Operation(target("bob", b), .increment(by: 10, initial: 100, ttl: nil)),
                             T.Operation(target("bob", b), .increment(by: 1, initial: 0, ttl: nil)),
                             T.Operation(target("pending", b), .remove), T.Operation(target("pending", b), .remove),
                             T.Operation(target("bob", b), .get)],
                      otherwise: [T.Operation(target("alice", a), .get)])
            let outcome = try store.run(t)
            try store.commit()
            XCTAssertTrue(outcome.succeeded)
            XCTAssertNil(outcome.failed)
            XCTAssertEqual(outcome.results.count, 6)
            guard case .counted(111, let bob) = outcome.results[2], case .removed(true) = outcome.results[3],
                  case .removed(false) = outcome.results[4], case .got(let got?) = outcome.results[5] else {
                return XCTFail("\(outcome.results)")
            }
            XCTAssertEqual(got.entry.bytes, bytes("111"), "a get sees the operations before it")
            XCTAssertEqual(got.entry.revision, bob)
            XCTAssertEqual(try a.lookup("alice")?.entry.bytes, bytes("90"))
            XCTAssertEqual(try a.lookup("alice")?.entry.revision, revision(outcome.results[0]))
            XCTAssertFalse(try b.contains("pending"))
        }
    }

    func testElseIsAppliedWhenAComparisonFailsAndTheFirstThatFailedIsNamed() throws {
        try eachKindOfCache { store, a, _ in
            let r = try a.set(Cache.Write(key: EntryKey(group: "g", key: "k"), kind: .json, bytes: bytes("1"), ttl: nil))
            let t = T(compare: [T.Comparison(target("k", a), .present), T.Comparison(target("k", a), .revision(r + 1)),
                                T.Comparison(target("other", a), .present)],
                      then: [T.Operation(target("k", a), json("2"))],
                      otherwise: [T.Operation(target("k", a), .get), T.Operation(target("flag", a), json("true"))])
            let outcome = try store.run(t)
            try store.commit()
            XCTAssertFalse(outcome.succeeded)
            XCTAssertEqual(outcome.failed, T.Failure(index: 1, key: "k", revision: r))
            XCTAssertEqual(outcome.results.count, 2)
            XCTAssertEqual(try a.text("k"), "1")
            XCTAssertEqual(try a.text("flag"), "true")
            let none = try store.run(T(compare: [T.Comparison(target("missing", a), .revision(r))], then: [], otherwise: []))
            XCTAssertEqual(none.failed, T.Failure(index: 0, key: "missing", revision: nil))
            XCTAssertEqual(try store.run(T(compare: [T.Comparison(target("k", "nowhere"), .absent)], then: [], otherwise: [])).succeeded, true,
                           "a cache that does not exist has no entries")
            XCTAssertNil(try store.cache(named: "nowhere", create: false), "and is not created by reading it")
        }
    }

    /// -31081 part-way: nothing of the transaction stays, in memory or in the
    /// store, and the other writes of the burst are kept.
    func testAFailingOperationUndoesEveryOperationBeforeIt() throws {
        try eachKindOfCache { store, a, b in
            try a.put("keep", "before")
            try a.set(Cache.Write(key: EntryKey(group: "g", key: "word"), kind: .json, bytes: bytes("\"seven\""), ttl: nil))
            let counted = try b.increment(EntryKey(group: "g", key: "n"), by: 5, initial: 0, ttl: nil)
            let t = T(compare: [], then: [T.Operation(target("keep", a), json("\"after\"")), T.Operation(target("new", a), json("1")),
                                           T.Operation(target("n", b), .increment(by: 1, initial: 0, ttl: nil)),
                                           T.Operation(target("n", b), .remove)]
                + (a.config.persistent ? [T.Operation(target("made", "fresh"), json("1"))] : [])
                + [T.Operation(target("word", a), .increment(by: 1, initial: 0, ttl: nil))],
                      otherwise: [])
            XCTAssertThrowsError(try store.run(t)) {
                guard case .operation(branch: "then", index: a.config.persistent ? 5 : 4, key: "word", error: .notAnInteger(key: "word", _))? = $0 as? StoreError else {
                    return XCTFail("\($0)")
                }
            }
            try b.put("neighbour", "kept")
            try store.commit()
            XCTAssertEqual(try a.text("keep"), "before")
            XCTAssertFalse(try a.contains("new"))
            XCTAssertEqual(try b.lookup("n")?.entry.revision, counted.revision)
            XCTAssertEqual(try b.lookup("n")?.entry.bytes, bytes("5"))
            XCTAssertEqual(try b.text("neighbour"), "kept")
            XCTAssertNil(try store.cache(named: "fresh", create: false), "nor is a cache it made left")
            if a.config.persistent {
                XCTAssertEqual(a.diskTotals.count, 2)
                let again = try makeStore()
                let reopened = try XCTUnwrap(try again.cache(named: a.name, create: false))
                XCTAssertEqual(try reopened.text("keep"), "before")
                XCTAssertFalse(try reopened.contains("new"))
            }
        }
    }

    /// A removal's event is sent when its transaction stands, and not at all
    /// when it is undone.
    func testEventsAreSentOnlyForATransactionThatStands() throws {
        try eachKindOfCache { store, a, _ in
            let log = EventLog()
            log.attach(to: store)
            try a.put("gone", "x")
            try a.set(Cache.Write(key: EntryKey(group: "g", key: "word"), kind: .json, bytes: bytes("\"seven\""), ttl: nil))
            let undone = T(compare: [], then: [T.Operation(target("gone", a), .remove), T.Operation(target("word", a), .increment(by: 1, initial: 0, ttl: nil))],
                           otherwise: [])
            XCTAssertThrowsError(try store.run(undone))
            XCTAssertTrue(log.events.isEmpty, "\(log.events)")
            XCTAssertTrue(try a.contains("gone"))
            _ = try store.run(T(compare: [], then: [T.Operation(target("gone", a), .remove)], otherwise: []))
            guard case .removed(_, "g", "gone", _)? = log.events.first, log.events.count == 1 else { return XCTFail("\(log.events)") }
        }
    }

    /// A value too large for its cache, after other operations: nothing of
    /// the transaction stays (a memory-only cache's is found before anything changes).
    func testAValueTooLargeForItsCacheUndoesTheTransaction() throws {
        for persistent in [true, false] {
            let store = try makeStore()
            let small = try openCache(store, persistent ? "small" : "memory small") {
                $0.persistent = persistent
                if persistent { $0.diskMaxBytes = 64 } else { $0.memoryMaxBytes = 64 }
            }
            try small.put("k", "before")
            let t = T(compare: [], then: [T.Operation(target("k", small), json("\"after\"")),
                                           T.Operation(target("big", small), json("\"" + String(repeating: "x", count: 100) + "\""))],
                      otherwise: [])
            XCTAssertThrowsError(try store.run(t)) {
                guard case .operation(branch: "then", index: 1, key: "big", error: .invalidArgument(field: "value", _))? = $0 as? StoreError else {
                    return XCTFail("\($0)")
                }
            }
            try store.commit()
            XCTAssertEqual(try small.text("k"), "before")
            XCTAssertFalse(try small.contains("big"))
        }
    }

    func testAnExpiredEntryIsAbsentUnlessTheCacheReturnsExpiredEntries() throws {
        try eachKindOfCache { store, a, _ in
            try a.set(Cache.Write(key: EntryKey(group: "g", key: "k"), kind: .json, bytes: bytes("1"), ttl: nil))
            XCTAssertTrue(store.clock.advance(milliseconds: 2000))
            let check = T(compare: [T.Comparison(target("k", a), .absent)], then: [], otherwise: [])
            let expired = try store.run(check)
            XCTAssertTrue(expired.succeeded)
            XCTAssertFalse(try store.run(T(compare: [T.Comparison(target("k", a), .present)], then: [], otherwise: [])).succeeded)
            XCTAssertFalse(try store.run(T(compare: [T.Comparison(target("k", a), .value(1))], then: [], otherwise: [])).succeeded)
            var returning = CacheConfigChange()
            returning.returnsExpired = true
            _ = try store.open(a.name, change: returning)
            let returned = try store.run(check)
            XCTAssertFalse(returned.succeeded)
            XCTAssertNotNil(returned.failed?.revision)
            XCTAssertTrue(try store.run(T(compare: [T.Comparison(target("k", a), .value(1))], then: [], otherwise: [])).succeeded)
            try store.commit()
        }
    }

    func testValuesCompareAsJSON() throws {
        try eachKindOfCache { store, a, _ in
            try a.set(Cache.Write(key: EntryKey(group: "g", key: "o"), kind: .json, bytes: bytes(#"{"x":1,"y":[1.0,"s"]}"#), ttl: nil))
            try a.set(Cache.Write(key: EntryKey(group: "g", key: "d"), kind: .data, bytes: bytes("1"), ttl: nil))
            func holds(_ key: String, _ value: JSON) throws -> Bool {
                try store.run(T(compare: [T.Comparison(target(key, a), .value(value))], then: [], otherwise: [])).succeeded
            }
            XCTAssertTrue(try holds("o", ["y": [1, "s"], "x": .number(JSONNumber(validLiteral: "1e0"))]), "members in any order, numbers by value")
            XCTAssertFalse(try holds("o", ["x": 1, "y": ["s", 1]]), "array order counts")
            XCTAssertFalse(try holds("o", ["x": 1]))
            XCTAssertFalse(try holds("d", 1), "bytes never equal")
            XCTAssertFalse(try holds("nothing", nil), "no entry never equals, not even null")
            try store.commit()
        }
    }

    /// Many comparisons of one cache are read together (on PostgreSQL in
    /// one statement): each is matched to its own entry, in an encrypted
    /// cache (whose rows hold MACs) as in a plain one, with keys that
    /// differ only in where the group ends and the key begins, one repeated,
    /// and one missing.
    func testManyComparisonsOfOneCacheEachFindTheirOwnEntry() throws {
        let store = try makeStore()
        store.useEncryptionKeys(EncryptionKeys(key: try EncryptionKey(base64: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="), byCache: [:]))
        for cache in [try openCache(store, "plain"), try openCache(store, "sealed") { $0.encrypted = true }] {
            let keys = [EntryKey(group: "ab", key: "c"), EntryKey(group: "a", key: "bc"), EntryKey(group: "", key: "abc"),
                        EntryKey(group: "abc", key: "d")]
            var revisions: [Int64] = []
            for (n, k) in keys.enumerated() {
                revisions.append(try cache.set(Cache.Write(key: k, kind: .json, bytes: bytes("[\(n)]"), ttl: nil)))
            }
            func comparison(_ k: EntryKey, _ test: T.Test) -> T.Comparison { T.Comparison(T.Target(cache: cache.name, key: k), test) }
            var compare = keys.enumerated().map { comparison($0.element, .revision(revisions[$0.offset])) }
            compare += keys.enumerated().map { comparison($0.element, .value([.number(JSONNumber(validLiteral: "\($0.offset)"))])) }
            compare += [comparison(keys[1], .present), comparison(EntryKey(group: "ab", key: "cd"), .absent)]
            let held = try store.run(T(compare: compare, then: [T.Operation(T.Target(cache: cache.name, key: keys[0]), json("1"))], otherwise: []))
            XCTAssertTrue(held.succeeded, "\(cache.name): \(String(describing: held.failed))")
            let swapped = try store.run(T(compare: [comparison(keys[0], .revision(revisions[2])), comparison(keys[1], .revision(revisions[1]))],
                                          then: [], otherwise: []))
            XCTAssertEqual(swapped.failed, T.Failure(index: 0, key: "c", revision: try cache.lookup("c", group: "ab")?.entry.revision))
            try store.commit()
        }
    }

    func testMemoryOnlyAndPersistentCachesDoNotMix() throws {
        let store = try makeStore()
        _ = try openCache(store, "disk")
        _ = try openCache(store, "memory") { $0.persistent = false }
        for t in [T(compare: [T.Comparison(target("k", "memory"), .absent)], then: [T.Operation(target("k", "disk"), json("1"))], otherwise: []),
                  T(compare: [], then: [T.Operation(target("k", "memory"), json("1"))], otherwise: [T.Operation(target("k", "new"), .increment(by: 1, initial: 0, ttl: nil))])] {
            assertInvalidArgument(field: "cache") { _ = try store.run(t) }
        }
        try store.commit()
        XCTAssertNil(try store.cache(named: "new", create: false))
    }

    /// Two processes on one store: a transaction reads what the other committed.
    func testATransactionSeesAnotherProcessesCommits() throws {
        let first = try makeStore()
        let second = try makeStore()
        let mine = try openCache(first, "a")
        try first.commit()
        let theirs = try XCTUnwrap(try second.cache(named: "a", create: false))
        let r = try mine.set(Cache.Write(key: EntryKey(group: "g", key: "k"), kind: .json, bytes: bytes("1"), ttl: nil))
        try first.commit()
        _ = try theirs.lookup("k")
        let t = T(compare: [T.Comparison(target("k", "a"), .revision(r))], then: [T.Operation(target("k", "a"), json("2"))], otherwise: [])
        XCTAssertTrue(try second.run(t).succeeded)
        try second.commit()
        XCTAssertFalse(try first.run(t).succeeded, "the revision compared is the store's, not the memory tier's")
        try first.commit()
        XCTAssertEqual(try mine.text("k"), "2")
    }
}
