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

    /// The key in the file at `path`: 32 bytes, or their base64 (surrounding
    /// whitespace ignored). A file that the group or others may read is
    /// refused: a key anyone on the machine can read protects nothing.
    public init(file path: String) throws(Refusal) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Refusal(reason: "cannot read key file \(path): \(String(cString: strerror(errno)))")
        }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            throw Refusal(reason: "key file \(path) may be read by its group or others (mode \(String(mode, radix: 8))); make it private with chmod 600")
        }
        guard let file = fopen(path, "rb") else {
            throw Refusal(reason: "cannot read key file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var content = [UInt8](repeating: 0, count: 4096)
        let n = fread(&content, 1, content.count, file)
        content.removeSubrange(n...)
        if content.count == 32 {
            self.init(bytes: content)
            return
        }
        let text = String(decoding: content, as: UTF8.self).trimmingWhitespace
        do { try self.init(base64: text) } catch {
            throw Refusal(reason: "key file \(path) holds neither 32 bytes nor base64 of 32 bytes (\(content.count) bytes)")
        }
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
