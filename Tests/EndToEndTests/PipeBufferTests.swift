#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// larder asks for large pipe buffers, so a pipelining client and the server
/// do not take turns waiting on 64 KiB.
final class PipeBufferTests: XCTestCase {
    func testThePipesToAndFromTheClientAreEnlarged() throws {
        let limitText = try String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8)
        let limit = Int32(limitText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let larder = try startLarder([])
        larder.send(#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
        XCTAssertNotNil(larder.readLine(), "larder answered")
        let getPipeSize: Int32 = 1032  // F_GETPIPE_SZ
        // Above the system's limit the request is refused and the default stays.
        let expected: Int32 = limit >= 1 << 20 ? 1 << 20 : 64 << 10
        XCTAssertEqual(fcntl(larder.pipeDescriptors.toChild, getPipeSize), expected)
        XCTAssertEqual(fcntl(larder.pipeDescriptors.fromChild, getPipeSize), expected)
        larder.closeStdin()
        XCTAssertEqual(larder.waitForExit(), 0)
    }
}
