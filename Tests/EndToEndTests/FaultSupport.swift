#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LarderJSON
import LarderTestSupport
import XCTest

/// A store directory of its own for one test (see `XCTestCase.temporaryStore`).
final class TemporaryStore {
    let path: String
    var database: String { path + "/larder.db" }

    init(_ label: String) {
        path = NSTemporaryDirectory() + "larder-\(label)-" + UUID().uuidString
    }

    /// A store at `path` (which may be a mount point made by the test).
    init(path: String) {
        self.path = path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Starts `larder --store` on this directory.
    func start(_ arguments: [String] = []) throws -> LarderProcess {
        try LarderProcess(["--store", path] + arguments)
    }
}

extension XCTestCase {
    /// A store directory of its own, removed with everything in it when the test ends.
    func temporaryStore(_ label: String) -> TemporaryStore {
        let store = TemporaryStore(label)
        addTeardownBlock { store.remove() }
        return store
    }
}

extension LarderProcess {
    /// `cache.set` of `key` to `value` in the default cache; the response.
    func set(_ key: String, _ value: JSON, id: JSON = 1, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        request("cache.set", params: ["key": .string(key), "value": value], id: id, file: file, line: line)
    }

    /// `cache.get` of `key` in the default cache; the response.
    func get(_ key: String, id: JSON = 1, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
        request("cache.get", params: ["key": .string(key)], id: id, file: file, line: line)
    }

    /// Closes stdin and returns the exit code.
    func endInput(file: StaticString = #filePath, line: UInt = #line) -> Int32? {
        closeStdin()
        let code = waitForExit()
        XCTAssertNotNil(code, "larder did not exit at the end of its input; stderr: \(stderrText)", file: file, line: line)
        return code
    }
}

/// A file system mounted for one test: a small tmpfs, or a path bound onto
/// itself read-only. Mounting needs root (CAP_SYS_ADMIN); where it is
/// refused, the test cannot make its fault (`TestRefusal`).
final class Mount {

    let path: String
    private var mounted = true

    private init(path: String) {
        self.path = path
    }

    /// A tmpfs of `size` bytes (as mount(8) takes it: "3m") at `path`, created if missing.
    static func tmpfs(at path: String, size: String) throws -> Mount {
        mkdir(path, 0o755)
        try call("mount a \(size) tmpfs at \(path)") { Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(size)") }
        return Mount(path: path)
    }

    /// `path` (a directory or a file) bound onto itself, then made read-only:
    /// root ignores file permissions, not a read-only mount.
    static func readOnly(_ path: String) throws -> Mount {
        try call("bind \(path) onto itself") { Glibc.mount(path, path, nil, UInt(MS_BIND), nil) }
        let mount = Mount(path: path)
        try call("make \(path) read-only") { Glibc.mount(nil, path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) }
        return mount
    }

    /// Unmounts, lazily: a server that is still running cannot keep the mount busy.
    func unmount() {
        guard mounted else { return }
        mounted = false
        umount2(path, Int32(MNT_DETACH))
    }

    deinit { unmount() }

    private static func call(_ what: String, _ body: () -> Int32) throws {
        guard geteuid() == 0 else { try TestRefusal.refuse("cannot \(what): mounting needs root, and the tests run as uid \(geteuid())") }
        guard body() == 0 else { try TestRefusal.refuse("cannot \(what): \(String(cString: strerror(errno)))") }
    }
}
