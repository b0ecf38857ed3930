import LarderSystem
import LarderTestSupport
import Foundation
import LarderJSON
import XCTest

/// Crash loops: for each kind of write, rounds of a pipelined burst against
/// the real `larder` on one store, `kill -9` at a random moment (see
/// `KillPoint`; the burst goes out in slices, so that it is several group
/// commits), and a restart on the same store, which must hold the state
/// after some prefix of the writes sent (SPEC 3.1, 3.3; see `WriteLedger`):
/// every acknowledged write with its value, no batch (`cache.setMany`,
/// `entity.apply`, `entity.upsert`, a `migrate.run` batch) in part, and no
/// value older than one a previous restart showed. A write is acknowledged
/// when the server sent its success answer before it died. After every kill,
/// `PRAGMA integrity_check` of the store as the crash left it must be `ok`;
/// after the last round, the store is closed cleanly and checked again.
///
/// `LARDER_CRASH_ROUNDS` sets the rounds, and so the kills, per kind of write
/// (default 50, sized for CI: about half a minute in all on two idle cores).
/// The workloads and kill points are drawn from a seed, printed in the
/// summary and with every failure; `LARDER_CRASH_SEED=<seed>` draws the same
/// again (a kill counted in messages lands at the same message; one timed in
/// microseconds may not).
final class CrashLoopTests: XCTestCase {
    static let rounds = ProcessInfo.processInfo.environment["LARDER_CRASH_ROUNDS"].flatMap { Int($0) } ?? 50
    static let seed = ProcessInfo.processInfo.environment["LARDER_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)

    private static let totals = Totals()

    func testCacheSet() throws { try crashLoop(CacheSetWorkload()) }
    func testCacheSetMany() throws { try crashLoop(CacheSetManyWorkload()) }
    func testObjectPut() throws { try crashLoop(ObjectPutWorkload()) }
    func testEntityApply() throws { try crashLoop(EntityApplyWorkload()) }
    func testEntityUpsert() throws { try crashLoop(EntityUpsertWorkload()) }
    func testMigrateRun() throws { try crashLoop(MigrateRunWorkload()) }
    func testCacheTransaction() throws { try crashLoop(CacheTransactionWorkload()) }

    override class func tearDown() {
        let t = totals.snapshot
        print("crash loops: \(t.kills) kills, \(grouped(t.writes)) acknowledged writes checked, seed \(seed)")
        super.tearDown()
    }

    private func crashLoop(_ workload: some CrashWorkload) throws {
        let directory = NSTemporaryDirectory() + "larder-crash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: Self.seed)
        var kills = 0, writes = 0
        let started = MonotonicClock.seconds()

        for round in 0..<Self.rounds {
            let context = "\(workload.method) crash loop, round \(round + 1) of \(Self.rounds), seed \(Self.seed) (replay with LARDER_CRASH_SEED=\(Self.seed))"
            let larder = try LarderProcess(["--store", directory])
            defer {
                larder.kill()
                _ = larder.waitForExit()
            }
            // The server opens the store before it reads a request: once it has
            // answered one, the kill falls on a store, not on a server still
            // starting (in the first round nothing else is asked before the burst).
            guard larder.request("crashLoop.ready")?["error"]?["code"] == -32601 else {
                return XCTFail("\(context): the server did not answer; stderr: \(larder.stderrText)")
            }
            guard let checked = verify(workload, larder, context: context + ", after the restart") else { return }
            writes += checked
            if let problem = workload.prepare(larder, round: round, random: &random) {
                return XCTFail("\(context): preparing the burst failed: \(problem)")
            }
            let burst = workload.burst(round: round, random: &random)
            let slices = burst.slices(using: &random)
            let point = KillPoint.random(expectedMessages: burst.expectedMessages, slices: slices, using: &random)
            let problems = point.crash(larder, during: burst, sentAs: slices)
            kills += 1
            guard problems.isEmpty else {
                return XCTFail("\(context), \(point): \(problems.prefix(5).joined(separator: "; "))")
            }
            let integrity = StoreIntegrity.checkCrashed(directory: directory)
            guard integrity == ["ok"] else {
                return XCTFail("\(context), \(point): integrity_check of the store as the crash left it: \(integrity.prefix(10))")
            }
        }

        let context = "\(workload.method) crash loop, after the last round, seed \(Self.seed) (replay with LARDER_CRASH_SEED=\(Self.seed))"
        let larder = try LarderProcess(["--store", directory])
        defer {
            larder.kill()
            _ = larder.waitForExit()
        }
        guard let checked = verify(workload, larder, context: context) else { return }
        writes += checked
        assertCleanExit(larder)
        let integrity = StoreIntegrity.check(directory: directory)
        XCTAssertEqual(integrity, ["ok"], "\(context): integrity_check of the store closed cleanly")

        Self.totals.add(kills: kills, writes: writes)
        print("crash loop \(workload.method): \(Self.rounds) rounds, \(kills) kills, \(Self.grouped(writes)) acknowledged writes checked, "
              + String(format: "%.1f s", MonotonicClock.seconds() - started) + ", seed \(Self.seed)")
    }

    /// Reads every ledger of `workload` back from a freshly started server and
    /// checks it; returns the acknowledged writes checked, or nil after a failure.
    private func verify(_ workload: some CrashWorkload, _ larder: LarderProcess, context: String) -> Int? {
        var checked = 0
        for ledger in workload.ledgers {
            guard let observed = workload.read(ledger, from: larder) else {
                XCTFail("\(context): the store could not be read; stderr: \(larder.stderrText)")
                return nil
            }
            let acknowledged = ledger.acknowledgedWrites
            let problems = (ledger.check(observed).map { [$0] } ?? []) + workload.consistencyProblems(in: observed, of: ledger)
            guard problems.isEmpty else {
                XCTFail("\(context): \(problems.prefix(5).joined(separator: "; "))")
                return nil
            }
            checked += acknowledged
        }
        return checked
    }

    /// `12345` as `12,345`.
    private static func grouped(_ n: Int) -> String {
        var digits = String(n), out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits.removeLast(3)
        }
        return digits + out
    }

    /// The counts of every crash loop run in this process, for the summary.
    private final class Totals: @unchecked Sendable {
        private let lock = NSLock()
        private var kills = 0, writes = 0

        func add(kills: Int, writes: Int) {
            lock.withLock {
                self.kills += kills
                self.writes += writes
            }
        }

        var snapshot: (kills: Int, writes: Int) { lock.withLock { (kills, writes) } }
    }
}
