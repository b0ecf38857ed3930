import LarderJSON
import XCTest

/// The crash loops' verdicts, on states made up by hand: a store that
/// breaks a rule must fail the check, one that keeps them must pass.
final class WriteLedgerTests: XCTestCase {
    /// A ledger holding `a = 0` durably, then this round: batch 0 sets a and
    /// b, batch 1 sets c and d, batch 2 sets a again.
    private func ledger(acknowledging acknowledged: Int) -> WriteLedger {
        let ledger = WriteLedger()
        ledger.recordDurable("a", 0)
        let batches: [[WriteLedger.Write]] = [
            [.init(key: "a", value: 1), .init(key: "b", value: 1)],
            [.init(key: "c", value: 2), .init(key: "d", value: 2)],
            [.init(key: "a", value: 3)],
        ]
        for (i, writes) in batches.enumerated() {
            let b = ledger.send("batch \(i)", writes)
            if b < acknowledged { ledger.acknowledge(b) }
        }
        return ledger
    }

    func testEveryPrefixFromTheAcknowledgedOnePasses() {
        let states: [[String: JSON]] = [
            ["a": 0],
            ["a": 1, "b": 1],
            ["a": 1, "b": 1, "c": 2, "d": 2],
            ["a": 3, "b": 1, "c": 2, "d": 2],
        ]
        for (committed, state) in states.enumerated() {
            for acknowledged in 0...committed {
                XCTAssertNil(ledger(acknowledging: acknowledged).check(state), "\(committed) committed, \(acknowledged) acknowledged")
            }
        }
    }

    func testALostAcknowledgedWriteFails() {
        let verdict = ledger(acknowledging: 2).check(["a": 1, "b": 1])
        XCTAssertEqual(verdict?.contains("batch 1 was acknowledged"), true, verdict ?? "passed")
    }

    func testAPartlyVisibleBatchFails() {
        let verdict = ledger(acknowledging: 0).check(["a": 1, "b": 1, "c": 2])
        XCTAssertEqual(verdict?.contains("batch 1 is partly visible"), true, verdict ?? "passed")
    }

    func testALaterBatchWithoutAnEarlierOneFails() {
        let verdict = ledger(acknowledging: 0).check(["a": 3])
        XCTAssertEqual(verdict?.contains("batch 2 is visible but batch 0, sent before it, is not"), true, verdict ?? "passed")
    }

    func testAValueOlderThanTheDurableOneFails() {
        let ledger = ledger(acknowledging: 3)
        XCTAssertNil(ledger.check(["a": 3, "b": 1, "c": 2, "d": 2]))
        // The next restart shows the value a had before the last round.
        let verdict = ledger.check(["a": 1, "b": 1, "c": 2, "d": 2])
        XCTAssertEqual(verdict?.contains("a holds 1, which is neither what it held before this round (3)"), true, verdict ?? "passed")
    }
}
