import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL

/// The waits between attempts to reach a server that is away (no server needed).
final class PostgreSQLBackoffTests: XCTestCase {
    func testWaitsDoubleUpToTheLimitAndStartOverAfterASuccess() {
        var backoff = PostgresBackoff(first: .milliseconds(50), limit: .milliseconds(500), jitter: 0)
        let waits = (0..<7).map { _ in backoff.next() }
        XCTAssertEqual(waits, [50, 100, 200, 400, 500, 500, 500].map { Duration.milliseconds($0) })
        backoff.reset()
        XCTAssertEqual(backoff.next(), .milliseconds(50))
    }

    func testJitterOnlyShortensEachWaitByUpToItsFraction() {
        var backoff = PostgresBackoff(first: .milliseconds(100), limit: .seconds(10), jitter: 0.25)
        var full = Duration.milliseconds(100)
        var shortened = false
        for _ in 0..<200 {
            let wait = backoff.next()
            XCTAssertLessThanOrEqual(wait, full)
            XCTAssertGreaterThanOrEqual(wait, full * 0.75)
            shortened = shortened || wait < full
            full = min(full * 2, .seconds(10))
        }
        XCTAssertTrue(shortened, "200 waits, none shortened")
    }

    func testAFirstWaitAboveTheLimitIsTheLimit() {
        var backoff = PostgresBackoff(first: .seconds(30), limit: .seconds(5), jitter: 0)
        XCTAssertEqual(backoff.next(), .seconds(5))
    }
}
