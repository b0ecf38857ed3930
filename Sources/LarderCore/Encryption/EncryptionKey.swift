#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client's 256-bit key for encrypted caches. Larder never stores it: it
/// derives each cache's keys from it (see `CacheSealer`) and keeps a check
/// value per cache to tell a wrong key from the right one.
public struct EncryptionKey: Sendable, Equatable {
    let bytes: [UInt8]

    /// Why a key given as text or as a file was refused.
    public struct Refusal: Error, Sendable, Equatable {
        public let reason: String
    }

    /// A key given as base64 of exactly 32 bytes.
    public init(base64 text: String) throws(Refusal) {
        guard let bytes = Base64.decode(text) else { throw Refusal(reason: "expected base64 of 32 bytes, got text that is not base64") }
        guard bytes.count == 32 else { throw Refusal(reason: "expected base64 of 32 bytes, got \(bytes.count) bytes") }
        self.init(bytes: bytes)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// The key in the file at `path`, in one of three forms that cannot be
    /// taken for one another: 64 hexadecimal digits, or base64 of the 32
    /// bytes (44 characters with its padding), whitespace around either
    /// ignored; or the 32 bytes themselves, as `head -c 32 /dev/urandom`
    /// writes them. Exactly 32 bytes that are all printable text are refused:
    /// they could as well be a 32-digit hex or base64 encoding of a shorter
    /// key, or a password, and taken as the key they would be one of far
    /// fewer than 2²⁵⁶ (random bytes are all printable once in 10¹³ keys).
    ///
    /// A file that is not a regular file (a FIFO, a device, a directory) is
    /// refused before anything is read from it: a FIFO nothing writes to
    /// would block the start for ever. So is a file the group or others may
    /// read: a key anyone on the machine can read protects nothing.
    public init(file path: String) throws(Refusal) {
        // O_NONBLOCK: opening a FIFO for reading waits for a writer otherwise.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw Refusal(reason: "cannot read key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw Refusal(reason: "cannot read key file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(reason: "key file \(path) is \(Self.kind(of: info.st_mode)), not a regular file; write the key to a file, or give it in initialize's encryption.key")
        }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            throw Refusal(reason: "key file \(path) may be read by its group or others (mode \(String(mode, radix: 8))); make it private with chmod 600")
        }
        let limit = 4096
        var content = [UInt8](repeating: 0, count: limit + 1)
        var n = 0
        while n < content.count {
            let got = content.withUnsafeMutableBytes { read(fd, $0.baseAddress! + n, $0.count - n) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw Refusal(reason: "cannot read key file \(path): \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            n += got
        }
        guard n <= limit else { throw Refusal(reason: "key file \(path) is larger than \(limit) bytes; \(Self.forms)") }
        content.removeSubrange(n...)
        if content.count == 32 {
            guard !content.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw Refusal(reason: "key file \(path) holds 32 characters of text, which could be the key's 32 bytes or a shorter key encoded; \(Self.forms)")
            }
            self.init(bytes: content)
            return
        }
        let text = String(decoding: content, as: UTF8.self).trimmingWhitespace
        if text.utf8.count == 64, let bytes = Self.hexDecoded(text) {
            self.init(bytes: bytes)
            return
        }
        guard let bytes = Base64.decode(text), bytes.count == 32 else {
            throw Refusal(reason: "key file \(path) holds no key (\(content.count) bytes); \(Self.forms)")
        }
        self.init(bytes: bytes)
    }

    /// The forms a key file may take, for the messages that refuse one.
    private static let forms = "a key file holds 64 hexadecimal digits, base64 of 32 bytes (44 characters), or 32 raw bytes (head -c 32 /dev/urandom)"

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    private static func hexDecoded(_ text: String) -> [UInt8]? {
        func digit(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let chars = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        for k in stride(from: 0, to: chars.count - 1, by: 2) {
            guard let high = digit(chars[k]), let low = digit(chars[k + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// The keys a session holds: one for every encrypted cache, and others for
/// named caches (a cache rekeyed in this session keeps its new key).
public struct EncryptionKeys: Sendable {
    public var key: EncryptionKey?
    public var byCache: [String: EncryptionKey] = [:]

    public init(key: EncryptionKey?, byCache: [String: EncryptionKey] = [:]) {
        self.key = key
        self.byCache = byCache
    }

    func key(for cache: String) -> EncryptionKey? { byCache[cache] ?? key }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        var end = scalars.endIndex
        while end > scalars.startIndex {
            let before = scalars.index(before: end)
            let c = scalars[before]
            guard c == " " || c == "\n" || c == "\r" || c == "\t" else { break }
            end = before
        }
        return String(scalars[scalars.startIndex..<end])
    }
}
