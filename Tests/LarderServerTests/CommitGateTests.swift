#if canImport(Glibc)
import Glibc
#endif
import LarderJSON
import LarderRPC
import XCTest
@testable import LarderCore
@testable import LarderServer

/// The gate on its own: when an answer may leave, and what a commit and a
/// watch over several commits report.
final class CommitGateTests: XCTestCase {
    private var store: Store!
    private var gate: CommitGate!
    private var connection: Connection!
    private var output: Int32 = -1

    override func setUpWithError() throws {
        store = try Store(directory: nil, clock: Clock(fixedAt: 1_767_225_600_000))
        output = open("/dev/null", O_WRONLY)
        connection = Connection(input: -1, output: output, maxMessageBytes: 1 << 20)
        gate = CommitGate(connection: connection, store: store)
    }

    override func tearDown() {
        gate = nil
        connection = nil
        store.close()
        close(output)
    }

    private func write(_ key: String) throws {
        let cache = try XCTUnwrap(try store.cache(named: "c", create: true))
        try cache.set([Cache.Write(key: EntryKey(group: "", key: key), kind: .json, bytes: Array("1".utf8), ttl: nil)])
    }

    func testAnAnswerAfterTheCommitWaitsOnlyForWritesPendingOrAnswersHeld() throws {
        let first = Reply.discarded(method: "m")
        gate.answer(first, .success(true), after: .commit)
        XCTAssertTrue(first.isDone, "nothing pending: answered at once")
        XCTAssertFalse(gate.isHolding)

        try write("a")
        let second = Reply.discarded(method: "m"), third = Reply.discarded(method: "m")
        gate.answer(second, .success(true), after: .commit)
        gate.answer(third, .success(true), after: .now)
        XCTAssertTrue(gate.isHolding)
        XCTAssertFalse(second.isDone, "held until the write commits")
        XCTAssertFalse(third.isDone, "held behind the answer before it")
        XCTAssertTrue(second.isDecided, "a held answer is no longer cancellable")

        guard case .success = gate.commit() else { return XCTFail("the commit failed") }
        XCTAssertTrue(second.isDone && third.isDone)
        XCTAssertFalse(gate.isHolding)
    }

    func testAFailedCommitIsReturnedAndFailsWhatItHeld() throws {
        try write("a")
        let held = Reply.discarded(method: "m")
        gate.answer(held, .success(true), after: .commit)
        store.sqlite!.refuseCommits(true)
        guard case .failure = gate.commit() else { return XCTFail("the commit succeeded") }
        XCTAssertTrue(held.isDone)
        store.sqlite!.refuseCommits(false)
        try write("b")
        guard case .success = gate.commit() else { return XCTFail("the next commit failed") }
    }

    /// Work whose writes land in several commits (a batch committed in parts
    /// by the flushes made while it waits for the client) learns at its own
    /// commit of a part rolled back before; a watch begun after that does not.
    func testAWatchReportsAFailedCommitAmongThoseItSpans() throws {
        let watch = gate.watch()
        try write("a")
        store.sqlite!.refuseCommits(true)
        guard case .failure = gate.commit() else { return XCTFail("the commit succeeded") }
        store.sqlite!.refuseCommits(false)
        let later = gate.watch()
        try write("b")
        guard case .failure = gate.commit(ending: watch) else { return XCTFail("the part rolled back went unnoticed") }
        try write("c")
        guard case .success = gate.commit(ending: later) else { return XCTFail("a watch begun after the failure reported it") }
    }
}
