#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import XCTest

/// The store's file system fills up: the write that does not fit is -31001
/// with SQLITE_FULL, reads go on, every write acknowledged before survives a
/// restart, and once space is freed outside the store, writes work again.
final class DiskFullFaultTests: XCTestCase {
    private static func value(_ i: Int) -> String {
        "\(i)-" + String(repeating: "v", count: 16 << 10)
    }

    func testWritesFailWhenTheDiskIsFullAndWorkAgainOnceSpaceIsFreed() throws {
        let root = temporaryStore("full")
        let mount = try Mount.tmpfs(at: root.path, size: "3m")
        defer { mount.unmount() }
        // A file taking a third of the space, for another program to free later.
        let filler = root.path + "/filler"
        XCTAssertTrue(FileManager.default.createFile(atPath: filler, contents: Data(count: 1 << 20)))
        let store = TemporaryStore(path: root.path + "/store")

        let larder = try store.start()
        var acknowledged: [Int] = []
        var refusal: JSON?
        // 400 values of 16 KiB are twice what the file system holds.
        for i in 0..<400 {
            let response = larder.set("k\(i)", .string(Self.value(i)), id: .int(i))
            guard response?["result"]?["stored"] == true else {
                refusal = response
                break
            }
            acknowledged.append(i)
        }
        XCTAssertFalse(acknowledged.isEmpty)
        XCTAssertEqual(refusal?.errorCode, -31001, "\(refusal.map(\.description) ?? "the disk never filled")")
        XCTAssertEqual((refusal?["error"]?["data"]?["sqliteCode"]?.numberValue?.int ?? 0) & 0xFF, 13, "SQLITE_FULL")
        // The next request is served: reads need no space.
        XCTAssertEqual(larder.get("k0", id: "read")?["result"]?["found"], true)

        XCTAssertEqual(unlink(filler), 0)
        XCTAssertEqual(larder.set("after", "space was freed", id: "after")?["result"]?["stored"], true)
        XCTAssertEqual(larder.endInput(), 0, larder.stderrText)

        let again = try store.start()
        let keys = acknowledged.map { JSON.string("k\($0)") } + ["after"]
        let entries = again.request("cache.getMany", params: ["keys": .array(keys)])?["result"]?["entries"]
        for i in acknowledged {
            XCTAssertEqual(entries?["k\(i)"]?["value"], .string(Self.value(i)), "k\(i) was acknowledged but lost")
        }
        XCTAssertEqual(entries?["after"]?["value"], "space was freed")
        XCTAssertEqual(again.endInput(), 0)
        XCTAssertEqual(StoreIntegrity.check(directory: store.path), ["ok"])
    }
}
