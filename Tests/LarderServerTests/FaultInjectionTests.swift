// The fault hook exists in debug builds only (release builds carry no trace
// of it), so these tests run in the debug leg of the test command.
#if DEBUG
import LarderJSON
import XCTest
@testable import LarderCore
@testable import LarderServer

/// Every write path, made to fail where a full disk or an I/O error would:
/// at one of its own statements, and at the commit. Every caller waiting for
/// the transaction gets a storage failure (-31001 with SQLite's code),
/// nothing of the transaction is visible afterwards, in memory or on disk,
/// nor after a restart, and the next write succeeds and lasts.
final class FaultInjectionTests: XCTestCase {
    /// SQLite's result codes for the failures injected.
    static let ioError: Int32 = 10   // SQLITE_IOERR
    static let diskFull: Int32 = 13  // SQLITE_FULL

    /// Where the fault falls: the `nth` statement from now whose SQL starts with `sql`.
    private struct Fault {
        var code: Int32
        var nth = 1
        var sql: String

        static func commit(_ code: Int32, nth: Int = 1) -> Fault { Fault(code: code, nth: nth, sql: "COMMIT") }

        func arm(_ store: Store) { store.sqlite!.injectFault(code, nth: nth, sqlPrefix: sql) }
    }

    private let directory = StoreDirectory()

    // MARK: - cache.set

    func testACacheSetBurstFailingAtAStatementFailsEveryWaitingCaller() throws {
        for direct in [true, false] {
            let directory = StoreDirectory()
            try cacheSetBurst(in: directory, direct: direct,
                              failing: Fault(code: Self.ioError, nth: 3, sql: "INSERT INTO entries"), laterInBurstSucceeds: true)
        }
    }

    func testACacheSetBurstFailingAtTheCommitFailsEveryWaitingCaller() throws {
        for direct in [true, false] {
            let directory = StoreDirectory()
            try cacheSetBurst(in: directory, direct: direct, failing: .commit(Self.diskFull), laterInBurstSucceeds: false)
        }
    }

    /// Sets pipelined into one group commit, the third write failing (or the
    /// commit): the sets and the read waiting behind them all fail; with a
    /// statement failing, a set after it starts a fresh transaction.
    private func cacheSetBurst(in directory: StoreDirectory, direct: Bool, failing fault: Fault, laterInBurstSucceeds: Bool) throws {
        try directory.serve(direct: direct) { session in
            assertResults(session.send([request(1, "cache.set", #"{"key":"k0","value":"kept"}"#)]))
        }
        try directory.serve(direct: direct, prepare: fault.arm) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"k0","value":"overwritten"}"#),
                request(2, "cache.set", #"{"key":"a","value":"lost"}"#),
                request(3, "cache.get", #"{"key":"a"}"#),
                request(4, "cache.set", #"{"key":"b","value":"lost"}"#),
                request(5, "cache.set", #"{"key":"d","value":"after the failure"}"#),
            ])
            if laterInBurstSucceeds {
                assertStorageFailures(answers.prefix(4), sqlite: fault.code)
                assertResults(answers.suffix(1))
            } else {
                assertStorageFailures(answers, sqlite: fault.code)
            }
            let after = session.send(gets(["k0", "a", "b", "d"], from: 10) + [request(20, "cache.set", #"{"key":"e","value":"next"}"#)])
            XCTAssertEqual(values(after.prefix(4)), [.string("kept"), nil, nil, laterInBurstSucceeds ? .string("after the failure") : nil])
            assertResults(after.suffix(1))
        }
        try directory.serve(direct: direct) { session in
            let restarted = session.send(gets(["k0", "a", "b", "d", "e"], from: 30))
            XCTAssertEqual(values(restarted), [.string("kept"), nil, nil, laterInBurstSucceeds ? .string("after the failure") : nil, .string("next")],
                           "after a restart")
        }
    }

    /// A result too large to be held (1 MiB or more) read behind a set is
    /// answered after a commit made for it; when that commit fails, the read
    /// fails with the set, as one held behind it does.
    func testALargeReadBehindAFailingCommitFailsWithIt() throws {
        let large = String(repeating: "x", count: 2 << 20)
        try directory.serve(prepare: Fault.commit(Self.diskFull).arm) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"big","value":"\#(large)"}"#),
                request(2, "cache.get", #"{"key":"big"}"#),
            ])
            XCTAssertEqual(answers.map { $0["id"] }, [.int(1), .int(2)])
            assertStorageFailures(answers, sqlite: Self.diskFull)
            XCTAssertEqual(values(session.send(gets(["big"], from: 10))), [nil])
        }
    }

    // MARK: - cache.setMany

    func testACacheSetManyFailingAtAStatementFailsEveryWaitingCaller() throws {
        try cacheSetMany(failing: Fault(code: Self.diskFull, nth: 3, sql: "INSERT INTO entries"))
    }

    func testACacheSetManyFailingAtTheCommitFailsEveryWaitingCaller() throws {
        try cacheSetMany(failing: .commit(Self.ioError))
    }

    private func cacheSetMany(failing fault: Fault) throws {
        try directory.serve { session in
            assertResults(session.send([request(1, "cache.set", #"{"key":"k0","value":"kept"}"#)]))
        }
        try directory.serve(prepare: fault.arm) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"x","value":"lost"}"#),
                request(2, "cache.setMany", #"{"entries":[{"key":"k0","value":"overwritten"},{"key":"a","value":"lost"},{"key":"b","value":"lost"}]}"#),
            ])
            assertStorageFailures(answers, sqlite: fault.code)
            let after = session.send(gets(["k0", "x", "a", "b"], from: 10)
                                     + [request(20, "cache.setMany", #"{"entries":[{"key":"c","value":"next"},{"key":"d","value":"next"}]}"#)])
            XCTAssertEqual(values(after.prefix(4)), [.string("kept"), nil, nil, nil])
            assertResults(after.suffix(1))
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["k0", "x", "a", "b", "c", "d"], from: 30))),
                           [.string("kept"), nil, nil, nil, .string("next"), .string("next")], "after a restart")
        }
    }

    // MARK: - cache.clear

    func testACacheClearFailingAtAStatementFailsEveryWaitingCaller() throws {
        try cacheClear(failing: Fault(code: Self.ioError, sql: "DELETE FROM entries"))
    }

    func testACacheClearFailingAtTheCommitFailsEveryWaitingCaller() throws {
        try cacheClear(failing: .commit(Self.diskFull))
    }

    private func cacheClear(failing fault: Fault) throws {
        try directory.serve { session in
            assertResults(session.send([
                request(1, "cache.set", #"{"key":"k0","value":"kept"}"#),
                request(2, "cache.set", #"{"key":"k1","value":"kept"}"#),
            ]))
        }
        try directory.serve(prepare: fault.arm) { session in
            // Read first, so the memory tier holds what the clear empties.
            XCTAssertEqual(values(session.send(gets(["k0", "k1"], from: 1))), [.string("kept"), .string("kept")])
            let answers = session.send([
                request(3, "cache.set", #"{"key":"x","value":"lost"}"#),
                request(4, "cache.clear", "{}"),
            ])
            assertStorageFailures(answers, sqlite: fault.code)
            let after = session.send(gets(["k0", "k1", "x"], from: 10))
            XCTAssertEqual(values(after), [.string("kept"), .string("kept"), nil])
            XCTAssertEqual(session.send([request(20, "cache.clear", "{}")]).first?["result"], ["removed": 2])
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["k0", "k1", "x"], from: 30))), [nil, nil, nil], "after a restart")
        }
    }

    // MARK: - object.put

    func testAnObjectPutFailingAtAStatementFailsEveryWaitingCaller() throws {
        try objectPut(failing: Fault(code: Self.diskFull, nth: 2, sql: "INSERT INTO entries"))
    }

    func testAnObjectPutFailingAtTheCommitFailsEveryWaitingCaller() throws {
        try objectPut(failing: .commit(Self.ioError))
    }

    private func objectPut(failing fault: Fault) throws {
        try directory.serve { session in
            assertResults(session.send([
                request(1, "schema.register", #"{"type":"Note","version":"1","fields":{"title":"string"}}"#),
                request(2, "object.put", #"{"key":"n0","type":"Note","value":{"title":"kept"}}"#),
            ]))
        }
        try directory.serve(prepare: fault.arm) { session in
            let answers = session.send([
                request(1, "object.put", #"{"key":"n0","type":"Note","value":{"title":"overwritten"}}"#),
                request(2, "object.put", #"{"key":"n1","type":"Note","value":{"title":"lost"}}"#),
            ])
            assertStorageFailures(answers, sqlite: fault.code)
            let after = session.send(gets(["n0", "n1"], from: 10)
                                     + [request(20, "object.put", #"{"key":"n2","type":"Note","value":{"title":"next"}}"#)])
            XCTAssertEqual(values(after.prefix(2)), [["title": "kept"], nil])
            assertResults(after.suffix(1))
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["n0", "n1", "n2"], from: 30))), [["title": "kept"], nil, ["title": "next"]],
                           "after a restart")
        }
    }

    // MARK: - migrate.run

    func testAMigrationBatchFailingAtAStatementFailsTheRun() throws {
        // The fourth write-back is the second of the second batch.
        try migrationBatch(failing: Fault(code: Self.ioError, nth: 4, sql: "UPDATE entries SET kind"))
    }

    func testAMigrationBatchFailingAtTheCommitFailsTheRun() throws {
        try migrationBatch(failing: .commit(Self.diskFull, nth: 2))
    }

    /// Four objects behind, migrated two a batch: the first batch stays
    /// migrated, the second is rolled back, and the run fails with the error.
    private func migrationBatch(failing fault: Fault) throws {
        let keys = ["o1", "o2", "o3", "o4"]
        try directory.serve { session in
            assertResults(session.send(notesBehindTheirSchema(keys)))
        }
        try directory.serve(prepare: fault.arm) { session in
            assertStorageFailures(session.send([request(1, "migrate.run", #"{"batchSize":2}"#)]), sqlite: fault.code)
            // cache.get shows each object as stored, without migrating it.
            XCTAssertEqual(versions(session.send(gets(keys, from: 10))), ["2", "2", "1", "1"])
            XCTAssertEqual(session.send([request(20, "migrate.run", #"{"batchSize":2}"#)]).first?["result"]?["migrated"], .int(2))
        }
        try directory.serve { session in
            XCTAssertEqual(versions(session.send(gets(keys, from: 30))), ["2", "2", "2", "2"], "after a restart")
        }
    }

    // MARK: - entity.apply

    func testAnEntityApplyFailingAtAStatementFailsEveryWaitingCaller() throws {
        try entityApply(failing: Fault(code: Self.diskFull, nth: 2, sql: #"INSERT INTO "entity.Band""#))
    }

    func testAnEntityApplyFailingAtTheCommitFailsEveryWaitingCaller() throws {
        try entityApply(failing: .commit(Self.ioError))
    }

    /// The apply fails, nothing of it is stored, and the batch stays staged:
    /// applying it again stores it.
    private func entityApply(failing fault: Fault) throws {
        try directory.serve { session in
            assertResults(session.send(defineBands() + [
                request(2, "entity.stage", #"{"entity":"Band","records":[{"name":"Japan","formed":1974}]}"#),
                request(3, "entity.apply", "{}"),
            ]))
        }
        try directory.serve(prepare: fault.arm) { session in
            assertResults(session.send([
                request(1, "entity.stage", #"{"entity":"Band","records":[{"name":"Ultravox","formed":1974},{"name":"Visage","formed":1978}]}"#),
            ]))
            let answers = session.send([
                request(2, "cache.set", #"{"key":"x","value":"lost"}"#),
                request(3, "entity.apply", "{}"),
            ])
            assertStorageFailures(answers, sqlite: fault.code)
            let after = session.send([
                request(10, "entity.count", #"{"entity":"Band"}"#),
                request(11, "entity.get", #"{"entity":"Band","id":"Ultravox"}"#),
                request(12, "cache.get", #"{"key":"x"}"#),
            ])
            XCTAssertEqual(after[0]["result"], ["count": 1])
            XCTAssertEqual(after[1]["result"], ["found": false])
            XCTAssertEqual(values(after.suffix(1)), [nil])
            XCTAssertEqual(session.send([request(20, "entity.apply", "{}")]).first?["result"]?["inserted"], .int(2))
        }
        try directory.serve { session in
            XCTAssertEqual(session.send([request(30, "entity.count", #"{"entity":"Band"}"#)]).first?["result"], ["count": 3],
                           "after a restart")
        }
    }

    // MARK: - entity.delete

    func testAnEntityDeleteFailingAtAStatementFailsEveryWaitingCaller() throws {
        // The cascade deletes the album first; the band's own delete fails.
        try entityDelete(failing: Fault(code: Self.ioError, nth: 2, sql: #"DELETE FROM "entity."#))
    }

    func testAnEntityDeleteFailingAtTheCommitFailsEveryWaitingCaller() throws {
        try entityDelete(failing: .commit(Self.diskFull))
    }

    private func entityDelete(failing fault: Fault) throws {
        try directory.serve { session in
            assertResults(session.send(defineBands() + [
                request(2, "entity.stage", #"{"entity":"Band","records":[{"name":"Japan","formed":1974}]}"#),
                request(3, "entity.stage", #"{"entity":"Album","records":[{"name":"Tin Drum","band":"Japan"}]}"#),
                request(4, "entity.apply", "{}"),
            ]))
        }
        let records = [
            request(10, "entity.get", #"{"entity":"Band","id":"Japan"}"#),
            request(11, "entity.get", #"{"entity":"Album","id":"Tin Drum"}"#),
        ]
        try directory.serve(prepare: fault.arm) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"x","value":"lost"}"#),
                request(2, "entity.delete", #"{"entity":"Band","id":"Japan"}"#),
            ])
            assertStorageFailures(answers, sqlite: fault.code)
            let after = session.send(records + gets(["x"], from: 12))
            XCTAssertEqual(after.prefix(2).map { $0["result"]?["found"] }, [.bool(true), .bool(true)])
            XCTAssertEqual(values(after.suffix(1)), [nil])
            XCTAssertEqual(session.send([request(20, "entity.delete", #"{"entity":"Band","id":"Japan"}"#)]).first?["result"],
                           ["deleted": 2, "nullified": 0])
        }
        try directory.serve { session in
            XCTAssertEqual(session.send(records).map { $0["result"]?["found"] }, [.bool(false), .bool(false)], "after a restart")
        }
    }

    // MARK: - Corrupt rows and broken invariants

    func testCorruptCacheSettingsAreAStorageFailureNamingTheCache() throws {
        try directory.serve { session in
            assertResults(session.send([request(1, "cache.set", #"{"cache":"thumbnails","key":"k","value":1}"#)]))
        }
        try directory.serve(prepare: { store in
            try store.database.execute(#"UPDATE caches SET config = '{"persistent":"yes"}' WHERE name = 'thumbnails'"#)
        }) { session in
            let answer = try XCTUnwrap(session.send([request(1, "cache.get", #"{"cache":"thumbnails","key":"k"}"#)]).first)
            XCTAssertEqual(answer["error"]?["code"], .int(-31001))
            XCTAssertEqual(answer["error"]?["message"]?.stringValue?.hasPrefix(#"storage failure: the settings of cache "thumbnails" are corrupt: "#), true,
                           "\(answer)")
            XCTAssertEqual(answer["error"]?["data"]?["cache"], "thumbnails")
            XCTAssertEqual(answer["error"]?["data"]?["sqliteCode"], .int(11), "SQLITE_CORRUPT")
        }
    }

    func testABrokenInvariantIsAnInternalError() throws {
        try directory.serve(prepare: { store in
            // The insert of a new entry is silently dropped: it neither lands nor conflicts.
            try store.database.execute("CREATE TEMP TRIGGER vanish BEFORE INSERT ON entries BEGIN SELECT RAISE(IGNORE); END")
        }) { session in
            let answer = try XCTUnwrap(session.send([request(1, "cache.set", #"{"key":"k","value":1}"#)]).first)
            XCTAssertEqual(answer["error"]?["code"], .int(-32603), "\(answer)")
            XCTAssertEqual(answer["error"]?["message"], "Internal error: an entry could be neither inserted nor updated")
        }
    }

    // MARK: - Helpers

    private func defineBands() -> [String] {
        [request(1, "entity.define", #"""
            {"model":"Bands","entities":[{"name":"Band","identifier":"name","attributes":{"name":"string","formed":"integer"},"relationships":[{"name":"albums","destination":"Album","toMany":true,"inverse":"band","deleteRule":"cascade"}]},{"name":"Album","identifier":"name","attributes":{"name":"string"},"relationships":[{"name":"band","destination":"Band","inverse":"albums"}]}]}
            """#)]
    }

    /// `cache.get` of each key, with ids from `first` on.
    private func gets(_ keys: [String], from first: Int) -> [String] {
        keys.enumerated().map { request(first + $0.offset, "cache.get", #"{"key":"\#($0.element)"}"#) }
    }

    /// The value each `cache.get` found, nil for a miss.
    private func values<S: Sequence<JSON>>(_ answers: S, file: StaticString = #filePath, line: UInt = #line) -> [JSON?] {
        answers.map { answer in
            guard let result = answer["result"] else {
                XCTFail("not a result: \(answer)", file: file, line: line)
                return nil
            }
            return result["found"] == .bool(true) ? result["value"] : nil
        }
    }

    /// The version each `cache.get` found an object stored under.
    private func versions(_ answers: [JSON]) -> [String?] {
        answers.map { $0["result"]?["version"]?.stringValue }
    }

    private func assertResults<S: Sequence<JSON>>(_ answers: S, file: StaticString = #filePath, line: UInt = #line) {
        for answer in answers where answer["result"] == nil {
            XCTFail("expected a result: \(answer)", file: file, line: line)
        }
    }

    /// Every answer is -31001 carrying SQLite's code `sqlite`.
    private func assertStorageFailures<S: Sequence<JSON>>(_ answers: S, sqlite: Int32, file: StaticString = #filePath, line: UInt = #line) {
        var count = 0
        for answer in answers {
            count += 1
            XCTAssertEqual(answer["error"]?["code"], .int(-31001), "\(answer)", file: file, line: line)
            XCTAssertEqual(answer["error"]?["data"]?["sqliteCode"], .int(Int(sqlite)), "\(answer)", file: file, line: line)
        }
        XCTAssertGreaterThan(count, 0, "no answers", file: file, line: line)
    }
}
#endif
