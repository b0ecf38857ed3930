import XCTest
@testable import LarderCore
import LarderStorage

/// Leases on names: two `Store`s on one store are two processes (or, with
/// `LARDER_TEST_ENGINE=postgresql`, two sidecars), each a session of its own.
final class LockTableTests: StoreTestCase {
    private func assertNotHeld(_ name: String, current: Int64?, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected lockNotHeld", file: file, line: line)
        } catch let StoreError.lockNotHeld(n, token) {
            XCTAssertEqual(n, name, file: file, line: line)
            XCTAssertEqual(token, current, file: file, line: line)
        } catch {
            XCTFail("expected lockNotHeld, got \(error)", file: file, line: line)
        }
    }

    func testAcquireIsRefusedWhileHeldElsewhere() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        XCTAssertEqual(try a.acquireLock("job", ttl: 5_000), .acquired(token: 1, expiresAt: 1_005_000))
        try a.commit()
        XCTAssertEqual(try b.acquireLock("job", ttl: 5_000), .held(token: 1, expiresAt: 1_005_000, heldHere: false))
        try b.commit()
        XCTAssertEqual(try a.acquireLock("job", ttl: 5_000), .held(token: 1, expiresAt: 1_005_000, heldHere: true))
        try a.commit()
        XCTAssertFalse(try b.lockIsFree("job"))
        XCTAssertTrue(try b.lockIsFree("other"))
    }

    func testTokensIncreaseAcrossReleaseAndExpiry() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        XCTAssertEqual(try a.acquireLock("job", ttl: 1_000), .acquired(token: 1, expiresAt: 1_001_000))
        XCTAssertTrue(try a.releaseLock("job", token: 1))
        try a.commit()
        XCTAssertTrue(try b.lockIsFree("job"))
        XCTAssertEqual(try b.acquireLock("job", ttl: 1_000), .acquired(token: 2, expiresAt: 1_001_000))
        try b.commit()
        // Expiry by the store's clock: b never released, and a takes it under the next token.
        XCTAssertTrue(clock.advance(milliseconds: 1_000))
        XCTAssertTrue(try a.lockIsFree("job"))
        XCTAssertEqual(try a.acquireLock("job", ttl: 1_000), .acquired(token: 3, expiresAt: 1_002_000))
        try a.commit()
        // Another name counts on its own.
        XCTAssertEqual(try b.acquireLock("other", ttl: 1_000), .acquired(token: 1, expiresAt: 1_002_000))
        try b.commit()
    }

    func testRenewExtendsTheLeaseUnderItsToken() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        _ = try a.acquireLock("job", ttl: 1_000)
        try a.commit()
        XCTAssertTrue(clock.advance(milliseconds: 900))
        XCTAssertEqual(try a.renewLock("job", token: 1, ttl: 1_000), 1_001_900)
        try a.commit()
        XCTAssertTrue(clock.advance(milliseconds: 900))
        XCTAssertEqual(try b.acquireLock("job", ttl: 1_000), .held(token: 1, expiresAt: 1_001_900, heldHere: false))
        try b.commit()
        // Once expired, a lease is lost: renewing it is refused even before anyone takes the name.
        XCTAssertTrue(clock.advance(milliseconds: 100))
        assertNotHeld("job", current: nil) { _ = try a.renewLock("job", token: 1, ttl: 1_000) }
        try a.commit()
    }

    func testAWrongTokenIsRefused() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        _ = try a.acquireLock("job", ttl: 1_000)
        try a.commit()
        assertNotHeld("job", current: 1) { _ = try b.renewLock("job", token: 2, ttl: 1_000) }
        assertNotHeld("job", current: 1) { _ = try b.releaseLock("job", token: 0) }
        assertNotHeld("nothing", current: nil) { _ = try b.releaseLock("nothing", token: 1) }
        try b.commit()
        // The holder's lease is untouched.
        XCTAssertEqual(try b.leases(prefix: "").map(\.token), [1])
        // A stale holder after expiry and a new acquisition: its token is refused, naming the new one.
        XCTAssertTrue(clock.advance(milliseconds: 1_000))
        _ = try b.acquireLock("job", ttl: 1_000)
        try b.commit()
        assertNotHeld("job", current: 2) { _ = try a.releaseLock("job", token: 1) }
        assertNotHeld("job", current: 2) { _ = try a.renewLock("job", token: 1, ttl: 1_000) }
        try a.commit()
    }

    func testReleasingAnExpiredLeaseReleasesNothing() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        _ = try a.acquireLock("job", ttl: 1_000)
        XCTAssertTrue(clock.advance(milliseconds: 1_000))
        XCTAssertFalse(try a.releaseLock("job", token: 1))
        _ = try a.acquireLock("job", ttl: 1_000)
        XCTAssertTrue(try a.releaseLock("job", token: 2))
        XCTAssertFalse(try a.releaseLock("job", token: 2))
        try a.commit()
    }

    func testListShowsLiveLeasesByPrefixInByteOrder() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        _ = try a.acquireLock("jobs/b", ttl: 2_000)
        _ = try a.acquireLock("jobs/a", ttl: 1_000)
        _ = try a.acquireLock("other", ttl: 2_000)
        _ = try a.acquireLock("jobs/é", ttl: 2_000)
        try a.commit()
        _ = try b.acquireLock("jobs/Z", ttl: 2_000)
        try b.commit()
        XCTAssertEqual(try b.leases(prefix: "jobs/"), [
            Lease(name: "jobs/Z", token: 1, expiresAt: 1_002_000, heldHere: true),
            Lease(name: "jobs/a", token: 1, expiresAt: 1_001_000, heldHere: false),
            Lease(name: "jobs/b", token: 1, expiresAt: 1_002_000, heldHere: false),
            Lease(name: "jobs/é", token: 1, expiresAt: 1_002_000, heldHere: false),
        ])
        XCTAssertTrue(clock.advance(milliseconds: 1_000))
        XCTAssertTrue(try a.releaseLock("jobs/b", token: 1))
        try a.commit()
        XCTAssertEqual(try b.leases(prefix: "").map(\.name), ["jobs/Z", "jobs/é", "other"])
        XCTAssertEqual(try b.leases(prefix: "x"), [])
    }

    func testClosingReleasesTheSessionsLeasesOnly() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        _ = try a.acquireLock("a1", ttl: 60_000)
        _ = try a.acquireLock("a2", ttl: 60_000)
        try a.commit()
        _ = try b.acquireLock("b1", ttl: 60_000)
        try b.commit()
        a.close()
        XCTAssertEqual(try b.leases(prefix: "").map(\.name), ["b1"])
        let c = try makeStore(clock: clock)
        XCTAssertEqual(try c.acquireLock("a1", ttl: 1_000), .acquired(token: 2, expiresAt: 1_001_000))
        try c.commit()
    }

    func testARolledBackAcquisitionLeavesNoLease() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        _ = try a.acquireLock("job", ttl: 1_000)
        a.transactions.rollBack()
        XCTAssertTrue(try b.lockIsFree("job"))
        XCTAssertEqual(try b.acquireLock("job", ttl: 1_000), .acquired(token: 1, expiresAt: 1_001_000))
        try b.commit()
    }

    /// A key's fetch lease (`cache.getOrFetch` with `shared`): held against
    /// other sessions until released or expired, apart from the leases on
    /// names — a lock named as the key takes nothing from it, and neither
    /// shows the other — and for any key, U+0000 included.
    func testFetchLeasesAreHeldPerKeyApartFromLockNames() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        let ca = try XCTUnwrap(a.cache(named: "pages", create: true))
        try a.commit()
        let cb = try XCTUnwrap(b.cache(named: "pages", create: true))
        let key = EntryKey(group: "", key: "job")
        XCTAssertNil(try a.takeFetchLease(key, of: ca, ttl: 1_000))
        XCTAssertNil(try a.takeFetchLease(EntryKey(group: "g\u{0}", key: "k\u{0}1"), of: ca, ttl: 1_000))
        try a.commit()
        XCTAssertEqual(try b.takeFetchLease(key, of: cb, ttl: 1_000), 1_001_000)
        try b.commit()
        XCTAssertEqual(try b.fetchLeaseHeldElsewhere(key, of: cb), 1_001_000)
        XCTAssertNil(try a.fetchLeaseHeldElsewhere(key, of: ca), "its own lease is not held elsewhere")
        XCTAssertEqual(try b.fetchLeaseHeldElsewhere(EntryKey(group: "g\u{0}", key: "k\u{0}1"), of: cb), 1_001_000)
        XCTAssertNil(try b.fetchLeaseHeldElsewhere(EntryKey(group: "g", key: "job"), of: cb), "another key is free")
        XCTAssertEqual(try b.acquireLock("job", ttl: 1_000), .acquired(token: 1, expiresAt: 1_001_000))
        try b.commit()
        XCTAssertEqual(try a.leases(prefix: "").map(\.name), ["job"], "lock.list shows the lock, not the fetch leases")

        // Renewed, it outlives its first expiry; released, the other takes it at once.
        XCTAssertTrue(clock.advance(milliseconds: 500))
        try a.renewFetchLease(key, of: ca, ttl: 1_000)
        try a.commit()
        XCTAssertTrue(clock.advance(milliseconds: 600))
        XCTAssertEqual(try b.fetchLeaseHeldElsewhere(key, of: cb), 1_001_500)
        try a.releaseFetchLease(key, of: ca)
        try a.commit()
        XCTAssertNil(try b.fetchLeaseHeldElsewhere(key, of: cb))
        XCTAssertNil(try b.takeFetchLease(key, of: cb, ttl: 1_000))
        try b.commit()

        // Expired (its holder renewed nothing), it is taken by the next to ask.
        XCTAssertTrue(clock.advance(milliseconds: 1_000))
        XCTAssertNil(try a.fetchLeaseHeldElsewhere(key, of: ca))
        XCTAssertNil(try a.takeFetchLease(key, of: ca, ttl: 1_000))
        try a.commit()
        XCTAssertEqual(try b.fetchLeaseHeldElsewhere(key, of: cb), 1_003_100)
    }

    /// A session that ends gives back its fetch leases with its leases on names.
    func testFetchLeasesAreGivenBackWhenTheSessionEnds() throws {
        let clock = Clock(fixedAt: 1_000_000)
        let a = try makeStore(clock: clock)
        let b = try makeStore(clock: clock)
        let ca = try XCTUnwrap(a.cache(named: "pages", create: true))
        try a.commit()
        let cb = try XCTUnwrap(b.cache(named: "pages", create: true))
        let key = EntryKey(group: "", key: "k")
        XCTAssertNil(try a.takeFetchLease(key, of: ca, ttl: 60_000))
        try a.commit()
        XCTAssertNotNil(try b.fetchLeaseHeldElsewhere(key, of: cb))
        try a.releaseHeldLocks()
        try a.commit()
        XCTAssertNil(try b.fetchLeaseHeldElsewhere(key, of: cb))
    }
}
