import LarderJSON
import XCTest

/// Two processes on a fresh store sent the same creating request at the same
/// moment: both succeed (or one is told -31002, store locked, and may retry),
/// never -31001; the one that lost the race adopts what the other created.
extension ManyProcessesTests {
    typealias Call = (method: String, params: JSON)

    /// How many writes follow each racing request in the same burst (SPEC 3.1).
    /// They keep the first process's transaction, and so its creation,
    /// uncommitted for a while, so the second looks in that window; and none
    /// of them may be lost to the race.
    static let burst = 300

    /// Runs one race `rounds` times, each on a fresh store: `prepare` goes to
    /// the first process and is answered before the race; then `calls[k]`,
    /// followed in the same write by `burst` cache.set requests, is sent to
    /// process k, all at once. Every answer must be a result or -31002;
    /// `check` judges the rounds in which the racing answers are results.
    func race(_ calls: [Call], prepare: [Call] = [],
              check: (_ answers: [JSON], _ processes: [LarderProcess]) -> Void = { _, _ in },
              file: StaticString = #filePath, line: UInt = #line) throws {
        var refused: [String] = []
        var locked = 0
        for round in 1...Self.rounds {
            let processes = try start(calls.count, on: freshStore(), file: file, line: line)
            for (k, c) in prepare.enumerated() {
                let answer = processes[0].request(c.method, params: c.params, id: .string("prepare-\(k)"), file: file, line: line)
                XCTAssertNotNil(answer?["result"], "preparing with \(c.method): \(answer.map(\.description) ?? "no answer")", file: file, line: line)
            }
            for (k, p) in processes.enumerated() {
                let followers = (0..<Self.burst).map {
                    LarderProcess.message("cache.set", ["cache": .string("burst\(k)"), "key": .string("n\($0)"), "value": .int($0)], id: .int($0))
                }
                p.send(bytes: Array(([LarderProcess.message(calls[k].method, calls[k].params, id: "race")] + followers)
                    .map { $0.description + "\n" }.joined().utf8))
            }
            var answers: [JSON] = []
            for (k, p) in processes.enumerated() {
                let race = p.answer(id: "race", file: file, line: line) ?? .null
                answers.append(race)
                if !race.isResultOrLocked { refused.append("round \(round), process \(k) (\(calls[k].method)): \(race)") }
                for n in 0..<Self.burst {
                    let follower = p.answer(id: .int(n), file: file, line: line) ?? .null
                    if !follower.isResultOrLocked { refused.append("round \(round), process \(k), cache.set after it: \(follower)") }
                }
            }
            if answers.contains(where: { $0.errorCode == -31002 }) { locked += 1 }
            if answers.allSatisfy({ $0["result"] != nil }) { check(answers, processes) }
            for p in processes {
                p.closeStdin()
                XCTAssertEqual(p.waitForExit(), 0, "stderr: \(p.stderrAtEnd(timeout: 1))", file: file, line: line)
            }
        }
        XCTAssertTrue(refused.isEmpty, "\(refused.count) answers in \(Self.rounds) rounds were neither a result nor -31002:\n"
                      + refused.prefix(20).joined(separator: "\n"), file: file, line: line)
        XCTAssertLessThan(locked, Self.rounds, "every round ended in -31002: nothing was checked", file: file, line: line)
    }

    /// Exactly one of the answers says it created the thing.
    func assertCreatedOnce(_ answers: [JSON], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answers.filter { $0["result"]?["created"] == true }.count, 1, "\(answers)", file: file, line: line)
    }

    static let tick: JSON = ["type": "Tick", "version": "1", "fields": ["seq": "integer"]]
    static let ledger: JSON = ["model": "Ledger", "entities": [["name": "Account", "attributes": ["id": "integer", "seq": "integer"]]]]

    func testCacheSetCreatingTheSameCache() throws {
        try race((0..<2).map { ("cache.set", ["cache": "fresh", "key": .string("k\($0)"), "value": .int($0)]) }) { _, processes in
            for k in 0..<2 {
                XCTAssertEqual(processes[1 - k].request("cache.get", params: ["cache": "fresh", "key": .string("k\(k)")])?["result"]?["value"], .int(k))
            }
        }
    }

    func testCacheSetManyCreatingTheSameCache() throws {
        try race((0..<2).map { ("cache.setMany", ["cache": "fresh", "entries": [["key": .string("k\($0)"), "value": .int($0)]]]) }) { _, processes in
            for k in 0..<2 {
                XCTAssertEqual(processes[1 - k].request("cache.get", params: ["cache": "fresh", "key": .string("k\(k)")])?["result"]?["value"], .int(k))
            }
        }
    }

    /// The process that finds the cache made applies its settings as a change, keeping the other's.
    func testCacheOpenWithDifferentSettings() throws {
        try race([("cache.open", ["cache": "fresh", "disk": ["maxCount": 100]]),
                  ("cache.open", ["cache": "fresh", "lifespan": 60])]) { answers, processes in
            assertCreatedOnce(answers)
            let second = answers.first { $0["result"]?["created"] == false }?["result"]?["config"]
            XCTAssertEqual(second?["disk"]?["maxCount"], 100, "\(answers)")
            XCTAssertEqual(second?["lifespan"], 60, "\(answers)")
            let listed = processes[0].request("cache.list", id: 2)?["result"]?["caches"]?.arrayValue?.first { $0["name"] == "fresh" }
            XCTAssertEqual(listed?["config"]?["disk"]?["maxCount"], 100)
            XCTAssertEqual(listed?["config"]?["lifespan"], 60)
        }
    }

    func testCacheOpenOfAMemoryOnlyCache() throws {
        try race((0..<2).map { _ in ("cache.open", ["cache": "fresh", "persistent": false]) }) { answers, _ in
            assertCreatedOnce(answers)
            for a in answers { XCTAssertEqual(a["result"]?["config"]?["persistent"], false) }
        }
    }

    func testObjectPutCreatingTheSameCache() throws {
        try race((0..<2).map { ("object.put", ["cache": "fresh", "key": .string("o\($0)"), "type": "Tick", "value": ["seq": .int($0)]]) },
                 prepare: [("schema.register", Self.tick)]) { _, processes in
            for k in 0..<2 {
                let got = processes[1 - k].request("object.get", params: ["cache": "fresh", "key": .string("o\(k)")])
                XCTAssertEqual(got?["result"]?["value"]?["seq"], .int(k))
            }
        }
    }

    func testObjectCopyCreatingTheSameTargetCache() throws {
        try race((0..<2).map { ("object.copy", ["cache": "source", "key": "o", "toCache": "fresh", "toKey": .string("copy\($0)")]) },
                 prepare: [("schema.register", Self.tick),
                           ("object.put", ["cache": "source", "key": "o", "type": "Tick", "value": ["seq": 7]])]) { _, processes in
            for k in 0..<2 {
                let got = processes[1 - k].request("object.get", params: ["cache": "fresh", "key": .string("copy\(k)")])
                XCTAssertEqual(got?["result"]?["value"]?["seq"], 7)
            }
        }
    }

    func testSchemaRegisterOfTheSameDefinition() throws {
        try race((0..<2).map { _ in ("schema.register", Self.tick) }) { answers, processes in
            assertCreatedOnce(answers)
            XCTAssertEqual(processes[1].request("schema.get", params: ["type": "Tick"])?["result"]?["schema"]?["fields"]?["seq"], "integer")
        }
    }

    /// Different definitions of one version: one is registered, the other refused with -31020.
    func testSchemaRegisterOfDifferentDefinitions() throws {
        let calls: [Call] = [("schema.register", ["type": "Tick", "version": "1", "fields": ["seq": "integer"]]),
                             ("schema.register", ["type": "Tick", "version": "1", "fields": ["label": "string"]])]
        var wrong: [String] = []
        for round in 1...Self.rounds {
            let processes = try start(2, on: freshStore())
            for (k, p) in processes.enumerated() { p.post(calls[k].method, calls[k].params, id: "race") }
            let answers = processes.map { $0.answer(id: "race") ?? .null }
            let codes = answers.map(\.errorCode)
            // Refused for the lock, a process did not race: the other registered alone.
            let expected = codes.contains(-31002) ? codes.allSatisfy { $0 == nil || $0 == -31002 }
                                                  : Set(codes) == [nil, -31020]
            if !expected { wrong.append("round \(round): \(answers)") }
            if let winner = answers.firstIndex(where: { $0["result"] != nil }) {
                XCTAssertEqual(answers[winner]["result"]?["created"], true)
                for p in processes {
                    XCTAssertEqual(p.request("schema.get", params: ["type": "Tick", "version": "1"], id: 2)?["result"]?["schema"]?["fields"],
                                   calls[winner].params["fields"])
                }
            }
            for p in processes {
                p.closeStdin()
                XCTAssertEqual(p.waitForExit(), 0, "stderr: \(p.stderrAtEnd(timeout: 1))")
            }
        }
        XCTAssertTrue(wrong.isEmpty, "\(wrong.count) of \(Self.rounds) rounds did not end in one result and one -31020 (or -31002):\n"
                      + wrong.joined(separator: "\n"))
    }

    /// The same model from both: one creates it, and each process writes and reads records in the other's tables.
    func testEntityDefineOfTheSameModel() throws {
        try race((0..<2).map { _ in ("entity.define", Self.ledger) }) { answers, processes in
            assertCreatedOnce(answers)
            for (k, p) in processes.enumerated() {
                let upsert = p.request("entity.upsert", params: ["entity": "Account", "records": [["id": .int(k), "seq": .int(k)]]], id: 2)
                XCTAssertEqual(upsert?["result"]?["inserted"], 1, "\(upsert.map(\.description) ?? "no answer")")
            }
            for (k, p) in processes.enumerated() {
                XCTAssertEqual(p.request("entity.get", params: ["entity": "Account", "id": .int(1 - k)], id: 3)?["result"]?["record"]?["seq"],
                               .int(1 - k))
            }
        }
    }
}
