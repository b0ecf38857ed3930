#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderStorage

/// The first copy of the WAL-index header, read from the database's `-shm`
/// file, which SQLite's unix VFS maps into every connection's memory.
///
/// Its 48 bytes (https://www.sqlite.org/walformat.html, "The WAL-Index
/// Header") hold a counter incremented by every transaction, the last valid
/// frame and the salts of the current WAL. If they are exactly as they were
/// when `PRAGMA data_version` was last asked, nobody has committed since, and
/// the question need not be asked again: asking starts a read transaction,
/// which costs two lock system calls and about 3,000 instructions, a third of
/// a whole `cache.get`. Any difference, a torn read included, only means the
/// pragma is asked.
final class WALIndexHeader {
    struct Snapshot: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

        static func == (a: Snapshot, b: Snapshot) -> Bool {
            a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
                && a.words.3 == b.words.3 && a.words.4 == b.words.4 && a.words.5 == b.words.5
        }
    }

    private static let length = 48
    private let fd: Int32
    private let mapping: UnsafeMutableRawPointer

    /// Maps the header of `shmPath` read-only, or nil when there is none to map.
    init?(shmPath: String) {
        let fd = open(shmPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) >= Self.length,
              let p = mmap(nil, Self.length, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            close(fd)
            return nil
        }
        self.fd = fd
        mapping = p
    }

    deinit {
        munmap(mapping, Self.length)
        close(fd)
    }

    /// The header as it is now. Copied with memcpy: another process writes it.
    func read() -> Snapshot {
        var s = Snapshot()
        withUnsafeMutableBytes(of: &s.words) { _ = memcpy($0.baseAddress!, mapping, Self.length) }
        return s
    }
}
