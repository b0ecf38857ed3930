@testable import LarderCore
import LarderJSON
import LarderTestSupport
import XCTest
@testable import LarderServer

/// One request's bad input fails that request alone: the other requests of
/// its burst, which share its transaction (group commit), are acknowledged
/// and last. Constraints are broken for real, by triggers on the store's
/// tables, as a user's data would break them; nothing here needs a debug hook.
final class RequestIsolationTests: XCTestCase {
    private let directory = StoreDirectory()

    /// Refuses to store an entry under any key starting with `refused`, as a
    /// broken constraint would.
    private static let refuseKeys = """
        CREATE TEMP TRIGGER refuse_keys BEFORE INSERT ON entries WHEN NEW.key LIKE 'refused%'
        BEGIN SELECT RAISE(ABORT, 'refused by a constraint'); END
        """

    func testASetBreakingAConstraintFailsAloneAndTheRestOfItsBurstLasts() throws {
        for direct in [true, false] {
            let directory = StoreDirectory()
            try directory.serve(direct: direct, prepare: { try $0.database.execute(Self.refuseKeys) }) { session in
                let answers = session.send([
                    request(1, "cache.set", #"{"key":"before","value":1}"#),
                    request(2, "cache.set", #"{"key":"refused","value":2}"#),
                    request(3, "cache.get", #"{"key":"before"}"#),
                    request(4, "cache.set", #"{"key":"after","value":3}"#),
                ])
                XCTAssertEqual(answers.count, 4)
                XCTAssertNotNil(answers[0]["result"], "\(answers[0])")
                assertConstraintFailure(answers[1])
                XCTAssertEqual(answers[2]["result"]?["value"], 1)
                XCTAssertNotNil(answers[3]["result"], "\(answers[3])")
            }
            try directory.serve(direct: direct) { session in
                XCTAssertEqual(values(session.send(gets(["before", "refused", "after"]))), [1, nil, 3], "after a restart")
            }
        }
    }

    func testASetManyBreakingAConstraintIsUndoneWholeAndAlone() throws {
        try directory.serve(prepare: { try $0.database.execute(Self.refuseKeys) }) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"before","value":1}"#),
                request(2, "cache.setMany", #"{"entries":[{"key":"m1","value":1},{"key":"refused","value":2},{"key":"m3","value":3}]}"#),
                request(3, "cache.set", #"{"key":"after","value":3}"#),
            ])
            XCTAssertNotNil(answers[0]["result"], "\(answers[0])")
            assertConstraintFailure(answers[1])
            XCTAssertNotNil(answers[2]["result"], "\(answers[2])")
            XCTAssertEqual(values(session.send(gets(["before", "m1", "m3", "after"]))), [1, nil, nil, 3])
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["before", "m1", "m3", "after"]))), [1, nil, nil, 3], "after a restart")
        }
    }

    /// A request whose failing statement came after it had already changed
    /// rows, outside a savepoint, cannot be undone alone: then, as before,
    /// its whole transaction fails rather than commit half a request.
    func testARequestThatChangedRowsBeforeItsStatementFailedFailsItsTransaction() throws {
        try directory.serve { session in
            let answers = session.send([
                request(1, "cache.open", #"{"cache":"one","disk":{"maxCount":1}}"#),
                request(2, "cache.set", #"{"cache":"one","key":"old","value":1}"#),
            ])
            XCTAssertNil(answers.first { $0["result"] == nil })
        }
        let refuseEvictions = """
            CREATE TEMP TRIGGER refuse_evictions BEFORE DELETE ON entries
            BEGIN SELECT RAISE(ABORT, 'refused by a constraint'); END
            """
        try directory.serve(prepare: { try $0.database.execute(refuseEvictions) }) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"other","value":1}"#),
                // Inserted, then refused the eviction its limit asks for.
                request(2, "cache.set", #"{"cache":"one","key":"new","value":2}"#),
            ])
            XCTAssertEqual(answers.count, 2)
            for answer in answers { assertConstraintFailure(answer) }
        }
        try directory.serve { session in
            let answers = session.send(gets(["other"]) + [
                request(9, "cache.get", #"{"cache":"one","key":"old"}"#),
                request(10, "cache.get", #"{"cache":"one","key":"new"}"#),
            ])
            XCTAssertEqual(values(answers), [nil, 1, nil])
        }
    }

    /// An object whose write-back breaks a constraint fails alone: the run
    /// counts it among its failures, and the rest of its batch is migrated.
    func testAMigrationWriteBackBreakingAConstraintFailsThatObjectAlone() throws {
        let keys = ["o1", "o2", "o3", "o4"]
        try directory.serve { session in
            XCTAssertNil(session.send(notesBehindTheirSchema(keys)).first { $0["result"] == nil })
        }
        let refuseO3 = """
            CREATE TEMP TRIGGER refuse_o3 BEFORE UPDATE ON entries WHEN OLD.key = 'o3'
            BEGIN SELECT RAISE(ABORT, 'refused by a constraint'); END
            """
        try directory.serve(prepare: { try $0.database.execute(refuseO3) }) { session in
            let run = try XCTUnwrap(session.send([request(1, "migrate.run", #"{"batchSize":2}"#)]).first)
            XCTAssertEqual(run["result"]?["migrated"], 3, "\(run)")
            XCTAssertEqual(run["result"]?["failed"], 1, "\(run)")
            XCTAssertEqual(run["result"]?["failures"]?.arrayValue?.first?["key"], "o3", "\(run)")
        }
        try directory.serve { session in
            let answers = session.send(gets(keys))
            XCTAssertEqual(answers.map { $0["result"]?["version"]?.stringValue }, ["2", "2", "1", "2"], "after a restart")
        }
    }

    /// Names that become SQL identifiers are checked before any SQL: a
    /// U+0000 in one is -32602 naming the member, and the set sent just
    /// before it in the same burst is stored.
    func testANameThatCannotBeAnSQLIdentifierIsInvalidParamsAndFailsNothingElse() throws {
        let models: [(String, String)] = [
            (#"{"model":"M","entities":[{"name":"Ba\u0000nd","attributes":{"id":"string"}}]}"#, "entities[0].name"),
            (#"{"model":"M","entities":[{"name":"Band","attributes":{"id":"string","na\u0000me":"string"}}]}"#, "entities[0].attributes"),
            (#"{"model":"M","entities":[{"name":"Band","attributes":{"id":"string"},"relationships":[{"name":"a\u0000","destination":"Band"}]}]}"#,
             "entities[0].relationships[0].name"),
        ]
        try directory.serve { session in
            for (k, (model, field)) in models.enumerated() {
                let answers = session.send([
                    request(1, "cache.set", #"{"key":"k\#(k)","value":\#(k)}"#),
                    request(2, "entity.define", model),
                ])
                XCTAssertNotNil(answers[0]["result"], "\(answers[0])")
                XCTAssertEqual(answers[1]["error"]?["code"], .int(-32602), "\(answers[1])")
                XCTAssertEqual(answers[1]["error"]?["message"]?.stringValue?.hasPrefix("Invalid params: \(field): "), true, "\(answers[1])")
            }
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["k0", "k1", "k2"]))), [0, 1, 2], "after a restart")
            XCTAssertEqual(session.send([request(1, "entity.models", "{}")]).first?["result"]?["models"], [])
        }
    }

    /// Bursts interleaving valid writes with each kind of invalid request:
    /// every valid write is acknowledged and found after a restart, every
    /// invalid request gets its error, and nothing of it is stored.
    func testEveryValidWriteOfABurstWithInvalidRequestsLasts() throws {
        var random = SeededRandom(seed: 27)
        var expected: [String: Int] = [:]
        var refusedKeys: [String] = []
        for direct in [true, false] {
            try directory.serve(direct: direct, prepare: { try $0.database.execute(Self.refuseKeys) }) { session in
                _ = session.send([request(1, "cache.open", #"{"cache":"small","disk":{"maxBytes":64}}"#)])
                for burst in 0..<12 {
                    var lines: [String] = []
                    var valid: [Int: (String, Int)] = [:]
                    for n in 0..<24 {
                        let id = 100 + n
                        let key = "d\(direct)-b\(burst)-r\(n)"
                        switch random.int(0...6) {
                        case 0:
                            refusedKeys.append("refused-\(key)")
                            lines.append(request(id, "cache.set", #"{"key":"refused-\#(key)","value":\#(n)}"#))
                        case 1:
                            lines.append(request(id, "entity.define", #"{"model":"M\#(n)","entities":[{"name":"E\u0000\#(n)","attributes":{"id":"string"}}]}"#))
                        case 2:
                            // Bigger than the cache's disk.maxBytes.
                            lines.append(request(id, "cache.set", #"{"cache":"small","key":"\#(key)","value":"\#(String(repeating: "x", count: 100))"}"#))
                        case 3:
                            lines.append(request(id, "cache.set", #"{"key":"\#(key)","value":1,"ttl":"soon"}"#))
                        default:
                            let value = random.int(0...999_999)
                            valid[id] = (key, value)
                            lines.append(request(id, "cache.set", #"{"key":"\#(key)","value":\#(value)}"#))
                        }
                    }
                    let answers = session.send(lines)
                    XCTAssertEqual(answers.count, lines.count)
                    for (n, answer) in answers.enumerated() {
                        XCTAssertEqual(answer["id"], .int(100 + n), "answers in the order of the requests")
                        if let (key, value) = valid[100 + n] {
                            XCTAssertNotNil(answer["result"], "a valid write in burst \(burst): \(answer)")
                            expected[key] = value
                        } else {
                            XCTAssertNotNil(answer["error"], "an invalid request in burst \(burst): \(answer)")
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(expected.count, 100)
        XCTAssertGreaterThan(refusedKeys.count, 10)
        try directory.serve { session in
            let keys = expected.keys.sorted()
            XCTAssertEqual(values(session.send(gets(keys))), keys.map { expected[$0].map { JSON.int($0) } }, "after a restart")
            XCTAssertEqual(values(session.send(gets(refusedKeys))), refusedKeys.map { _ in nil })
        }
    }

    /// A transaction in a pipelined burst between plain sets: one whose
    /// comparison fails applies its else branch, one that fails part-way (a
    /// count that is not an integer, a broken constraint) is undone whole, in
    /// memory and in the store, and its neighbours are acknowledged and last.
    func testATransactionFailingPartWayIsUndoneWholeAndAlone() throws {
        let directory = StoreDirectory()
        try directory.serve(prepare: { try $0.database.execute(Self.refuseKeys) }) { session in
            let answers = session.send([
                request(1, "cache.set", #"{"key":"word","value":"seven"}"#),
                request(2, "cache.transaction", #"{"compare":[{"key":"word","absent":true}],"then":[{"op":"set","key":"t1","value":1}],"else":[{"op":"set","key":"e1","value":1}]}"#),
                request(3, "cache.set", #"{"key":"between","value":2}"#),
                request(4, "cache.transaction", #"{"then":[{"op":"set","key":"t2","value":1},{"op":"remove","key":"between"},{"op":"increment","key":"word"}]}"#),
                request(5, "cache.transaction", #"{"then":[{"op":"set","key":"t3","value":1},{"op":"set","key":"refused","value":1}]}"#),
                request(6, "cache.set", #"{"key":"after","value":3}"#),
            ])
            XCTAssertEqual(answers.count, 6)
            XCTAssertEqual(answers[1]["result"]?["succeeded"], false, "\(answers[1])")
            XCTAssertEqual(answers[3]["error"]?["code"], .int(-31081), "\(answers[3])")
            XCTAssertEqual(answers[3]["error"]?["data"], ["key": "word", "index": 2, "branch": "then"])
            assertConstraintFailure(answers[4])
            for i in [0, 2, 5] { XCTAssertNotNil(answers[i]["result"], "\(answers[i])") }
            XCTAssertEqual(values(session.send(gets(["t1", "e1", "between", "t2", "t3", "after"]))), [nil, 1, 2, nil, nil, 3])
        }
        try directory.serve { session in
            XCTAssertEqual(values(session.send(gets(["t1", "e1", "between", "t2", "t3", "after"]))), [nil, 1, 2, nil, nil, 3], "after a restart")
        }
    }

    // MARK: - Helpers

    private func gets(_ keys: [String]) -> [String] {
        keys.enumerated().map { request(1000 + $0.offset, "cache.get", #"{"key":"\#($0.element)"}"#) }
    }

    /// The value each `cache.get` found, nil for a miss.
    private func values(_ answers: [JSON], file: StaticString = #filePath, line: UInt = #line) -> [JSON?] {
        answers.map { answer in
            guard let result = answer["result"] else {
                XCTFail("not a result: \(answer)", file: file, line: line)
                return nil
            }
            return result["found"] == .bool(true) ? result["value"] : nil
        }
    }

    /// -31001 with SQLite's code for a constraint a trigger's RAISE(ABORT) broke.
    private func assertConstraintFailure(_ answer: JSON, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer["error"]?["code"], .int(-31001), "\(answer)", file: file, line: line)
        XCTAssertEqual(answer["error"]?["data"]?["sqliteCode"], .int(1811), "SQLITE_CONSTRAINT_TRIGGER: \(answer)", file: file, line: line)
    }
}
