#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest
import LarderJSON
@testable import LarderRPC

/// After enough input, a pause in it is the moment to give memory back; a
/// client that keeps sending never waits for it.
final class ConnectionQuietTests: XCTestCase {
    /// Serves `first`, then, after `pause`, `second`; returns how many
    /// requests had been handled at each quiet moment.
    private func serve(first: [String], pause: TimeInterval, second: [String], window: Int32 = 20) -> [Int] {
        var inFDs: [Int32] = [0, 0], outFDs: [Int32] = [0, 0]
        precondition(pipe(&inFDs) == 0 && pipe(&outFDs) == 0)
        let handler = FakeHandler()
        let connection = Connection(input: inFDs[0], output: outFDs[1], maxMessageBytes: 1 << 20)
        connection.handler = handler
        connection.largeMessageBytes = 300
        connection.loop.quietAfterMilliseconds = window
        var quietAt: [Int] = []
        connection.loop.onQuiet = { quietAt.append(handler.requests.count) }
        let writeEnd = inFDs[1], readEnd = outFDs[0]
        let firstBytes = Array(first.map { $0 + "\n" }.joined().utf8)
        let secondBytes = Array(second.map { $0 + "\n" }.joined().utf8)
        let writer = Thread {
            firstBytes.withUnsafeBytes { _ = write(writeEnd, $0.baseAddress, $0.count) }
            Thread.sleep(forTimeInterval: pause)
            secondBytes.withUnsafeBytes { _ = write(writeEnd, $0.baseAddress, $0.count) }
            close(writeEnd)
        }
        // Answers are drained as they come so the connection never blocks on output.
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while buffer.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
        }
        reader.start()
        writer.start()
        _ = withExtendedLifetime(handler) { connection.run() }
        close(inFDs[0])
        close(outFDs[1])
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        close(outFDs[0])
        return quietAt
    }

    private func echoes(_ n: Int, pad: Int = 40) -> [String] {
        (0..<n).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"echo","params":{"pad":"\#(String(repeating: "x", count: pad))"}}"# }
    }

    func testAPauseAfterALargeMessageIsAQuietMoment() {
        let quiet = serve(first: echoes(3) + echoes(1, pad: 400), pause: 0.3, second: echoes(3))
        XCTAssertEqual(quiet, [4], "once, after the large message and before the rest")
    }

    func testAPauseAfterSmallMessagesIsNot() {
        let quiet = serve(first: echoes(20), pause: 0.3, second: echoes(1))
        XCTAssertEqual(quiet, [])
    }

    func testInputThatKeepsComingHasNoQuietMoment() {
        // A generous window: a busy machine may delay the writer, not the verdict.
        let quiet = serve(first: echoes(1, pad: 400), pause: 0.05, second: echoes(10), window: 5000)
        XCTAssertEqual(quiet, [])
    }
}
