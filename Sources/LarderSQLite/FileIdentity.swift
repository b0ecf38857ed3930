#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderStorage

/// Which file a path names: its device and inode number.
///
/// While a process holds a file open, its inode cannot be given to another
/// file on that device, so a path that still names the same device and inode
/// names that very file. A file that was unlinked (its link count fell to 0)
/// is named by no path at all, and a replacement or a store made anew has
/// another inode or another device: comparing identities by path catches
/// deletion, moving away and replacement alike, in one stat(2).
public struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// What `path` names now; nil when it names nothing.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
