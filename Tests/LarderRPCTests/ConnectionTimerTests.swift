#if canImport(Glibc)
import Glibc
#endif
import XCTest
import LarderJSON
@testable import LarderRPC

/// Timers run between messages once due; held for the end of the input, a
/// session read from a file is served in one order however loaded the
/// machine is.
final class ConnectionTimerTests: XCTestCase {
    /// Serves two requests from a file with a timer due at once; returns
    /// how many requests had been handled when it ran.
    private func requestsHandledWhenTheTimerRan(waitingForEndOfInput: Bool) throws -> Int? {
        let input = try XCTUnwrap(tmpfile()), output = try XCTUnwrap(tmpfile())
        defer { fclose(input); fclose(output) }
        let session = Array((0..<2).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"echo"}"# + "\n" }.joined().utf8)
        XCTAssertEqual(session.withUnsafeBytes { write(fileno(input), $0.baseAddress, $0.count) }, session.count)
        lseek(fileno(input), 0, SEEK_SET)
        let handler = FakeHandler()
        let connection = Connection(input: fileno(input), output: fileno(output), maxMessageBytes: 1 << 20)
        connection.handler = handler
        connection.loop.timersWaitForEndOfInput = waitingForEndOfInput
        var handledThen: Int?
        connection.loop.after(milliseconds: 0) { handledThen = handler.requests.count }
        _ = withExtendedLifetime(handler) { connection.run() }
        return handledThen
    }

    func testATimerDueRunsBeforeTheNextMessage() throws {
        XCTAssertEqual(try requestsHandledWhenTheTimerRan(waitingForEndOfInput: false), 0)
    }

    func testTimersHeldForTheEndOfInputRunAfterEveryMessage() throws {
        XCTAssertEqual(try requestsHandledWhenTheTimerRan(waitingForEndOfInput: true), 2)
    }
}
