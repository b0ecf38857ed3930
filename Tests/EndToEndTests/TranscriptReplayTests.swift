import Foundation
import LarderJSON
import XCTest
import LarderTestSupport

/// `larder replay` plays every transcript in protocol/transcripts, and reports a changed expectation readably.
final class TranscriptReplayTests: XCTestCase {
    static let transcripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("protocol/transcripts")

    static func replay(_ paths: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: LarderProcess.executablePath)
        process.arguments = ["replay"] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    func testEveryTranscriptReplays() throws {
        let (status, output) = try Self.replay([Self.transcripts.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertFalse(output.contains("FAILED"), output)
        XCTAssertTrue(output.contains(" passed, 0 failed"), output)
    }

    /// Every transcript plays the same on a store on PostgreSQL (each in a
    /// schema of its own), but those whose header says they are SQLite's own.
    func testEveryTranscriptReplaysOnPostgreSQL() throws {
        let (status, output) = try Self.replay(["--store", try PostgresTestURL.value, Self.transcripts.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertFalse(output.contains("FAILED"), output)
        XCTAssertTrue(output.contains(" passed, 0 failed"), output)
    }

    func testAChangedExpectationFailsWithADiff() throws {
        let original = try String(contentsOf: Self.transcripts.appendingPathComponent("cache-basics.transcript"), encoding: .utf8)
        let changed = original.replacingOccurrences(of: #""stored":true,"size":47"#, with: #""stored":true,"size":48"#)
        XCTAssertNotEqual(changed, original)
        let copy = NSTemporaryDirectory() + "changed-\(UUID().uuidString).transcript"
        try changed.write(toFile: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let (status, output) = try Self.replay([copy])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(output.contains("FAILED"), output)
        XCTAssertTrue(output.contains("$.result.size: expected 48, got 47"), output)
        XCTAssertTrue(output.contains("expected: ") && output.contains("actual: "), output)
    }

    /// `<-- (none)`: the first message after the next `-->` line is its answer,
    /// so an answer to an earlier request arriving first fails the replay.
    func testNoneRefusesALateAnswerToAnEarlierRequest() throws {
        let transcript = """
            // args: --memory
            --> {"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"k","value":1}}
            <-- (none)
            --> {"jsonrpc":"2.0","id":2,"method":"cache.has","params":{"key":"k"}}
            <-- {"jsonrpc":"2.0","id":1,"result":{"stored":true,"size":1,"revision":1}}
            <-- {"jsonrpc":"2.0","id":2,"result":{"found":true,"valid":true}}

            """
        let copy = NSTemporaryDirectory() + "none-\(UUID().uuidString).transcript"
        try transcript.write(toFile: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let (status, output) = try Self.replay([copy])
        XCTAssertEqual(status, 1, output)
        XCTAssertTrue(output.contains(":5: expected nothing before the answer to id 2"), output)

        // Where the answers come as the transcript says, it passes.
        let kept = """
            // args: --memory
            --> {"jsonrpc":"2.0","id":1,"method":"cache.set","params":{"key":"k","value":1}}
            <-- {"jsonrpc":"2.0","id":1,"result":{"stored":true,"size":1,"revision":1}}
            <-- (none)
            --> {"jsonrpc":"2.0","id":2,"method":"cache.has","params":{"key":"k"}}
            <-- {"jsonrpc":"2.0","id":2,"result":{"found":true,"valid":true}}

            """
        try kept.write(toFile: copy, atomically: true, encoding: .utf8)
        let (keptStatus, keptOutput) = try Self.replay([copy])
        XCTAssertEqual(keptStatus, 0, keptOutput)
    }

    /// `B-->`/`B<--` lines talk to a second server on the same store, started
    /// at its first line with `// args B:`; every server's input is closed at
    /// the end and each must exit. A failure names the server.
    func testSeveralServersShareTheReplaysStore() throws {
        let shared = """
            // args B: --app-version 2.0
            --> {"jsonrpc":"2.0","id":2,"method":"cache.open","params":{"cache":"kept","kind":"store"}}
            <-- {"jsonrpc":"2.0","id":2,"result":"{...}"}
            --> {"jsonrpc":"2.0","id":3,"method":"cache.set","params":{"cache":"kept","key":"k","value":1}}
            <-- {"jsonrpc":"2.0","id":3,"result":{"stored":true,"size":1,"revision":1}}
            B--> {"jsonrpc":"2.0","id":1,"method":"cache.has","params":{"cache":"kept","key":"k"}}
            B<-- {"jsonrpc":"2.0","id":1,"result":{"found":true,"valid":true}}
            --> {"jsonrpc":"2.0","id":4,"method":"cache.remove","params":{"cache":"kept","key":"k"}}
            <-- {"jsonrpc":"2.0","id":4,"result":{"removed":true}}
            B--> {"jsonrpc":"2.0","id":2,"method":"cache.has","params":{"cache":"kept","key":"k"}}
            B<-- {"jsonrpc":"2.0","id":2,"result":{"found":false,"valid":false}}

            """
        let copy = NSTemporaryDirectory() + "servers-\(UUID().uuidString).transcript"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try shared.write(toFile: copy, atomically: true, encoding: .utf8)
        let (status, output) = try Self.replay([copy])
        XCTAssertEqual(status, 0, output)

        try shared.replacingOccurrences(of: #"B<-- {"jsonrpc":"2.0","id":2,"result":{"found":false"#,
                                        with: #"B<-- {"jsonrpc":"2.0","id":2,"result":{"found":true"#)
            .write(toFile: copy, atomically: true, encoding: .utf8)
        let (failed, failure) = try Self.replay([copy])
        XCTAssertEqual(failed, 1, failure)
        XCTAssertTrue(failure.contains(":11 (server B): $.result.found: expected true, got false"), failure)

        // Servers sharing a store leave it to the replay.
        try ("// args: --memory\n" + shared).write(toFile: copy, atomically: true, encoding: .utf8)
        let (refused, why) = try Self.replay([copy])
        XCTAssertEqual(refused, 1, why)
        XCTAssertTrue(why.contains("a transcript of several servers leaves their store to the replay"), why)
    }

    func testARecordingOnAFixedClockKeepsExactTimes() throws {
        let recording = NSTemporaryDirectory() + "recorded-\(UUID().uuidString).transcript"
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let larder = try LarderProcess(["--memory", "--clock", "2026-01-01T00:00:00Z", "--enable-test-methods", "--record", recording])
        _ = larder.request("cache.set", params: ["key": "a", "value": ["x": 1], "ttl": 60])
        _ = larder.request("cache.get", params: ["key": "a"], id: 2)
        _ = larder.request("debug.advanceClock", params: ["seconds": 30], id: 3)
        _ = larder.request("cache.getMany", params: ["keys": ["a"]], id: 4)
        _ = larder.request("nope", id: 5)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        XCTAssertTrue(text.contains("// args: --memory --clock 2026-01-01T00:00:00Z --enable-test-methods"), text)
        XCTAssertEqual(text.components(separatedBy: "\n--> ").count - 1, 5, text)
        // A replay is given the same clock, so the times are checked exactly.
        XCTAssertEqual(text.components(separatedBy: #""storedAt":"2026-01-01T00:00:00.000Z""#).count - 1, 2, text)
        XCTAssertEqual(text.components(separatedBy: #""expiresAt":"2026-01-01T00:01:00.000Z""#).count - 1, 2, text)
        XCTAssertTrue(text.contains(#""now":"2026-01-01T00:00:30.000Z""#), text)
        XCTAssertFalse(text.contains("[..]"), text)
        let (status, output) = try Self.replay([recording])
        XCTAssertEqual(status, 0, output)
    }

    func testARecordingOnTheSystemClockReplaysLater() throws {
        let recording = NSTemporaryDirectory() + "recorded-\(UUID().uuidString).transcript"
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let larder = try LarderProcess(["--memory", "--record", recording])
        _ = larder.request("initialize", params: [:])
        // The client's own times, even under the server's member names, are kept as sent.
        let value: JSON = ["storedAt": "2020-01-01T00:00:00Z", "expiresAt": "2020-01-02T00:00:00Z"]
        _ = larder.request("cache.set", params: ["key": "a", "value": value, "ttl": 3600], id: 2)
        _ = larder.request("cache.set", params: ["key": "b", "value": "forever"], id: 3)
        let found = larder.request("cache.get", params: ["key": "a"], id: 4)
        _ = larder.request("cache.getMany", params: ["keys": ["a", "b", "c"]], id: 5)
        larder.send(#"[{"jsonrpc":"2.0","id":6,"method":"cache.get","params":{"key":"b"}},{"jsonrpc":"2.0","id":7,"method":"cache.has","params":{"key":"a"}}]"#)
        XCTAssertNotNil(larder.readMessage()?.arrayValue)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        XCTAssertFalse(text.contains("--clock"), text)
        guard let storedAt = found?["result"]?["storedAt"]?.stringValue else { return XCTFail("no storedAt in \(found.map(\.description) ?? "nothing")") }
        XCTAssertFalse(text.contains(storedAt), "the time the server stamped is a pattern: \(text)")
        // a: get, getMany; b: getMany, batch.
        XCTAssertEqual(text.components(separatedBy: #""storedAt":"20[..]Z""#).count - 1, 4, text)
        XCTAssertEqual(text.components(separatedBy: #""expiresAt":"20[..]Z""#).count - 1, 2, text)
        // In the request that stores the value and the two answers that return it.
        XCTAssertEqual(text.components(separatedBy: value.description).count - 1, 3, text)

        // Replayed once the clock has moved on from every time the session saw.
        usleep(10_000)
        let (status, output) = try Self.replay([recording])
        XCTAssertEqual(status, 0, output)
    }
}
