import LarderCore
import LarderJSON
import LarderRPC

/// Parameters that many `cache.*` methods share, decoded one way everywhere.
extension Params {
    /// `cache`: a non-empty name, "default" when absent.
    func cacheName() throws(ResponseError) -> String {
        let name = try optional("cache", as: String.self) ?? "default"
        guard !name.isEmpty else { throw .invalidParams("\(path).cache must not be empty") }
        return name
    }

    /// `group`: any string, "" (the default group) when absent.
    func group() throws(ResponseError) -> String {
        try optional("group", as: String.self) ?? ""
    }

    /// A required non-empty key under `name`, in the request's group.
    func entryKey(_ name: String = "key") throws(ResponseError) -> EntryKey {
        EntryKey(group: try group(), key: try nonEmptyKey(try require(name, as: String.self), at: "\(path).\(name)"))
    }

    func nonEmptyKey(_ key: String, at path: String) throws(ResponseError) -> String {
        guard !key.isEmpty else { throw .invalidParams("\(path) must not be empty") }
        return key
    }

    /// Seconds (fractional allowed, not negative) as milliseconds.
    func milliseconds(_ name: String) throws(ResponseError) -> Int64? {
        guard let seconds = try optional(name, as: Double.self) else { return nil }
        guard seconds >= 0 else { throw .invalidParams("\(path).\(name) must not be negative") }
        guard seconds < 9e15 else { throw .invalidParams("\(path).\(name) is too large") }
        return Int64((seconds * 1000).rounded())
    }

    /// A limit: a non-negative integer, 0 meaning unlimited.
    func limit(_ name: String) throws(ResponseError) -> Int? {
        guard let n = try optional(name, as: Int.self) else { return nil }
        guard n >= 0 else { throw .invalidParams("\(path).\(name) must not be negative (0 means no limit)") }
        return n
    }

    /// `value` (any JSON) or `data` (base64 bytes): exactly one of them.
    func storedValue() throws(ResponseError) -> (Entry.Kind, [UInt8]) {
        let value = object["value"], data = self["data"]
        switch (value, data) {
        case (nil, nil):
            throw .invalidParams("\(path) needs value (any JSON) or data (base64 bytes)")
        case (.some, .some):
            throw .invalidParams("\(path) has both value and data; give one")
        case (.some(let v), nil):
            return (.json, v.encoded)
        case (nil, .some(let d)):
            guard case .string(let text) = d else { throw Params.mismatch(at: "\(path).data", expected: "base64 string", got: d) }
            guard let bytes = Base64.decode(text) else { throw .invalidParams("\(path).data is not valid base64") }
            return (.data, bytes)
        }
    }

    /// One entry to write, from `key`, `value`/`data` and `ttl`.
    func write() throws(ResponseError) -> Cache.Write {
        let (kind, bytes) = try storedValue()
        return Cache.Write(key: try entryKey(), kind: kind, bytes: bytes, ttl: try milliseconds("ttl"))
    }
}

extension Cache.Lookup {
    /// The protocol's view of a found entry, encoded at once: a get is the
    /// hottest path, and writing the bytes directly skips building a tree
    /// only to walk it again.
    var json: JSON {
        var w = JSONWriter(capacity: entry.bytes.count + 160)
        write(into: &w)
        return .fragment(JSONFragment(validJSON: w.copiedBytes))
    }

    func write(into w: inout JSONWriter) {
        w.writeASCII("{\"found\":true,")
        switch entry.kind {
        case .json:
            w.writeASCII("\"value\":")
            w.writeRaw(entry.bytes)
        case .data:
            w.writeASCII("\"data\":")
            w.writeString(Base64.encode(entry.bytes))
        case .object:
            // An object read as a plain entry: its value as stored, not migrated.
            let stored = (try? JSONParser.parse(entry.bytes)).flatMap(StoredObject.init)
            w.writeASCII("\"value\":")
            w.write(stored?.plainValue ?? .null)
            if let stored {
                w.writeASCII(",\"type\":")
                w.writeString(stored.type)
                w.writeASCII(",\"version\":")
                w.writeString(stored.version.text)
            }
        }
        w.writeASCII(expired ? ",\"expired\":true,\"storedAt\":\"" : ",\"expired\":false,\"storedAt\":\"")
        Timestamp.append(milliseconds: entry.storedAt, to: &w)
        if let expiresAt {
            w.writeASCII("\",\"expiresAt\":\"")
            Timestamp.append(milliseconds: expiresAt, to: &w)
        }
        w.writeASCII(tier == .memory ? "\",\"tier\":\"memory\"}" : "\",\"tier\":\"disk\"}")
    }

    static let notFound: JSON = ["found": false]
}

extension Server {
    /// The cache a request names; created with defaults when `create` is true.
    func cache(_ r: Request, create: Bool) throws(ResponseError) -> Cache? {
        let name = try r.params.cacheName()
        return try core { () throws(StoreError) in try store.cache(named: name, create: create) }
    }

    /// A cache that must exist.
    func existingCache(_ r: Request) throws(ResponseError) -> Cache {
        let name = try r.params.cacheName()
        guard let c = try cache(r, create: false) else { throw StoreError.cacheNotFound(name).responseError }
        return c
    }

    /// Runs a core operation, mapping its errors to the protocol's.
    func core<T>(_ body: () throws(StoreError) -> T) throws(ResponseError) -> T {
        do { return try body() } catch { throw error.responseError }
    }
}
