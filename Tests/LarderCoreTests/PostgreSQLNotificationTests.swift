#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest
@testable import LarderCore
@testable import LarderPostgreSQL
import LarderStorage

/// LISTEN and NOTIFY between two connections.
final class PostgreSQLNotificationTests: PostgresTestCase {
    func testANotificationReachesTheListenerWhenItsTransactionCommits() throws {
        let listener = try connect()
        let sender = try connect()
        try listener.listen("larder_changes")
        XCTAssertEqual(try listener.notifications(), [], "nothing was sent yet")

        try sender.transaction { () throws(StoreError) in
            try sender.notify("larder_changes", payload: "cache c: k1")
            try sender.notify("larder_other", payload: "not listened to")
            XCTAssertEqual(try listener.waitForNotifications(timeout: .milliseconds(100)), [], "not before the commit")
        }
        let arrived = try listener.waitForNotifications(timeout: .seconds(5))
        XCTAssertEqual(arrived, [PostgresNotification(channel: "larder_changes", payload: "cache c: k1", senderPID: sender.backendPID)])
        XCTAssertEqual(try listener.notifications(), [], "each notification is delivered once")
    }

    func testTheSocketBecomesReadableWhenANotificationArrives() throws {
        let listener = try connect()
        let sender = try connect()
        // Channel names are identifiers: any text, quoted.
        let channel = "Larder \"Events\" ✓"
        try listener.listen(channel)
        var ready = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&ready, 1, 0), 0, "nothing to read yet")

        try sender.notify(channel, payload: "one")
        try sender.notify(channel, payload: "two")
        XCTAssertEqual(poll(&ready, 1, 5000), 1, "the socket did not become readable")
        // Each NOTIFY outside a transaction commits on its own; both may not have arrived yet.
        var payloads: [String] = []
        XCTAssertTrue(try waitFor(seconds: 5) { () throws(StoreError) in
            payloads += try listener.notifications().map(\.payload)
            return payloads.count == 2
        })
        XCTAssertEqual(payloads, ["one", "two"])

        try listener.unlisten(channel)
        try sender.notify(channel, payload: "three")
        XCTAssertEqual(try listener.waitForNotifications(timeout: .milliseconds(200)), [], "no longer listening")
    }

    func testNotificationsArrivingDuringOtherQueriesAreKept() throws {
        let listener = try connect()
        let sender = try connect()
        try listener.listen("larder_changes")
        try sender.notify("larder_changes", payload: "during")
        // The notification comes in with the answer to this query, and waits in libpq.
        PostgresConnection.sleep(until: ContinuousClock.now + .milliseconds(50))
        try listener.query("SELECT 1")
        XCTAssertEqual(try listener.notifications().map(\.payload), ["during"])
    }
}
