#if canImport(Glibc)
import Glibc
#endif
import XCTest
import LarderJSON

/// A store holds the app's data: only its owner may read it, whatever the
/// umask, and one an earlier Larder left readable is made private.
final class StoreModeTests: XCTestCase {
    private func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    func testTheStoreDirectoryAndItsFilesAreTheOwnersAlone() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let dir = parent + "/nested/store"
        let previous = umask(0o022)
        defer { umask(previous) }
        let larder = try LarderProcess(["--store", dir])
        XCTAssertEqual(larder.request("cache.set", params: ["key": "k", "value": 1])?["result"]?["stored"], true)
        XCTAssertEqual(mode(dir), 0o700)
        for file in ["larder.db", "larder.db-wal", "larder.db-shm"] {
            XCTAssertEqual(mode(dir + "/" + file), 0o600, file)
        }
        assertCleanExit(larder)

        // Left readable by an earlier Larder: private again once opened.
        XCTAssertEqual(chmod(dir, 0o755), 0)
        XCTAssertEqual(chmod(dir + "/larder.db", 0o644), 0)
        let again = try LarderProcess(["--store", dir])
        XCTAssertEqual(again.request("cache.get", params: ["key": "k"])?["result"]?["found"], true)
        XCTAssertEqual(mode(dir), 0o700)
        XCTAssertEqual(mode(dir + "/larder.db"), 0o600)
        assertCleanExit(again)
    }
}
