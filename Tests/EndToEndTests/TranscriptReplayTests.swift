import Foundation
import XCTest

/// `larder replay` plays every transcript in protocol/transcripts, and reports a changed expectation readably.
final class TranscriptReplayTests: XCTestCase {
    static let transcripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("protocol/transcripts")

    private func replay(_ paths: [String]) throws -> (status: Int32, output: String) {
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
        let (status, output) = try replay([Self.transcripts.path])
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
        let (status, output) = try replay([copy])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(output.contains("FAILED"), output)
        XCTAssertTrue(output.contains("$.result.size: expected 48, got 47"), output)
        XCTAssertTrue(output.contains("expected: ") && output.contains("actual: "), output)
    }

    func testARecordedSessionReplays() throws {
        let recording = NSTemporaryDirectory() + "recorded-\(UUID().uuidString).transcript"
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let larder = try LarderProcess(["--memory", "--clock", "2026-01-01T00:00:00Z", "--record", recording])
        _ = larder.request("cache.set", params: ["key": "a", "value": ["x": 1]])
        _ = larder.request("cache.get", params: ["key": "a"], id: 2)
        _ = larder.request("nope", id: 3)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        XCTAssertTrue(text.contains("// args: --memory --clock 2026-01-01T00:00:00Z"), text)
        XCTAssertEqual(text.components(separatedBy: "\n--> ").count - 1, 3, text)
        let (status, output) = try replay([recording])
        XCTAssertEqual(status, 0, output)
    }
}
