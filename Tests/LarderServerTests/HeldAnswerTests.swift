import XCTest
@testable import LarderCore
@testable import LarderServer

/// Answers held until a commit — a write's, and every answer after it in the
/// same burst — are released in order when it succeeds, and each becomes the
/// commit's error when it fails. Served both ways (see `DirectAnswerTests`).
final class HeldAnswerTests: XCTestCase {
    func testAFailedCommitTurnsEveryHeldAnswerIntoItsError() throws {
        let lines = [
            request(1, "cache.set", #"{"key":"a","value":1}"#),
            request(2, "cache.get", #"{"key":"a"}"#),
            request(3, "cache.set", #"{"key":"b","value":"two"}"#),
            request(4, "cache.get", #"{"cache":"never-made","key":"a"}"#),
            request(5, "cache.set", #"{"key":"c","data":"AAE="}"#),
            request(6, "cache.get", #"{"key":"b"}"#),
        ]
        let answers = try assertBothPathsAgree(lines) { $0.sqlite!.refuseCommits(true) }
        XCTAssertEqual(answers.count, lines.count)
        for (k, answer) in answers.enumerated() {
            XCTAssertTrue(answer.hasPrefix(#"{"jsonrpc":"2.0","id":\#(k + 1),"error":"#), "answer \(k + 1): \(answer)")
            XCTAssertFalse(answer.contains(#""result""#), "answer \(k + 1) was not lost with the commit: \(answer)")
        }
    }

    /// A large result held behind a write passes through the held answers'
    /// buffer, which then goes back to its first size; answers after it
    /// are unaffected.
    func testLargeResultsHeldBehindAWriteArriveWhole() throws {
        let big = String(repeating: "0123456789abcdef", count: 96 * 1024)   // 1.5 MiB
        var lines = [
            request(1, "cache.set", #"{"key":"big","value":"\#(big)"}"#),
            request(2, "cache.set", #"{"key":"small","value":"s"}"#),
            request(3, "cache.get", #"{"key":"big"}"#),
            request(4, "cache.get", #"{"key":"small"}"#),
        ]
        for k in 0..<20 {
            lines.append(request(10 + 2 * k, "cache.set", #"{"key":"k\#(k)","value":\#(k)}"#))
            lines.append(request(11 + 2 * k, "cache.get", #"{"key":"k\#(k)"}"#))
        }
        let answers = try assertBothPathsAgree(lines)
        XCTAssertEqual(answers.count, lines.count)
        XCTAssertTrue(answers[2].hasPrefix(#"{"jsonrpc":"2.0","id":3,"result":{"found":true,"value":"\#(big)","#))
        XCTAssertTrue(answers[3].hasPrefix(#"{"jsonrpc":"2.0","id":4,"result":{"found":true,"value":"s","#))
        for k in 0..<20 {
            XCTAssertTrue(answers[4 + 2 * k].hasPrefix(#"{"jsonrpc":"2.0","id":\#(10 + 2 * k),"result":{"stored":true,"size":\#(String(k).utf8.count),"revision":"#))
            XCTAssertTrue(answers[5 + 2 * k].hasPrefix(#"{"jsonrpc":"2.0","id":\#(11 + 2 * k),"result":{"found":true,"value":\#(k),"#))
        }
    }

    /// Without a subscriber no event is made, but evictions still count; a
    /// subscription made later gets the events from then on.
    func testEvictionsCountBeforeASubscriptionAndAreSentAfterIt() throws {
        let lines = [
            request(1, "cache.open", #"{"cache":"small","persistent":false,"memory":{"maxCount":1}}"#),
            request(2, "cache.set", #"{"cache":"small","key":"a","value":1}"#),
            request(3, "cache.set", #"{"cache":"small","key":"b","value":2}"#),
            request(4, "cache.subscribe", #"{"cache":"small"}"#),
            request(5, "cache.set", #"{"cache":"small","key":"c","value":3}"#),
            request(6, "cache.stats", #"{"cache":"small"}"#),
        ]
        let answers = try assertBothPathsAgree(lines)
        let events = answers.filter { $0.contains(#""method":"cache.evicted""#) }
        XCTAssertEqual(events.count, 1, "only the eviction after the subscription: \(events)")
        XCTAssertTrue(events.first?.contains(#""key":"b""#) ?? false)
        let stats = try XCTUnwrap(answers.first { $0.hasPrefix(#"{"jsonrpc":"2.0","id":6,"#) })
        XCTAssertTrue(stats.contains(#""evictions":2"#), String(stats))
    }
}
