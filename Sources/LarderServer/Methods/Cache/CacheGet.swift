import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `cache.get`: the value under a key, from memory or disk.
///
/// Plain requests are answered from their bytes (DirectAnswers.swift); both
/// paths end in `lookup`, which alone calls the core and encodes the result.
enum CacheGet: MethodDefinition {
    static let methodName: StaticString = "cache.get"
    static let method = methodName.description
    typealias Params = EntryParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        var w = JSONWriter(capacity: 256)
        let store = r.server.store
        try r.server.mappingStoreErrors { () throws(StoreError) in
            try UTF8Text.with(p.cache, p.key.group, p.key.key) { (cache, group, key) throws(StoreError) in
                try lookup(in: store, cache: cache, group: group, key: key, into: &w)
            }
        }
        return .result(Result(json: .fragment(JSONFragment(validJSON: w.copiedBytes))))
    }

    /// Looks the key up and writes the result: the entry, or `{"found":false}`
    /// when it or its cache does not exist.
    @inline(__always)
    static func lookup(in store: Store, cache: UnsafeBufferPointer<UInt8>, group: UnsafeBufferPointer<UInt8>,
                       key: UnsafeBufferPointer<UInt8>, into w: inout JSONWriter) throws(StoreError) {
        let found = try store.cache(namedUTF8: cache, create: false)?.get(group: group, key: key, { write($0, into: &w) },
                                                                         inPlace: { (found, value) throws(StoreError) in
            try writeInPlace(found, value, into: &w)
        }) ?? false
        if !found { w.writeASCII("{\"found\":false}") }
    }

    /// `write` of a large value left where the disk tier holds it: read
    /// from there a piece at a time, straight into the result, so that the
    /// value is not held again between the two. After an error reading it,
    /// what was written is not to be sent.
    @inline(never)
    private static func writeInPlace(_ found: Cache.Lookup, _ value: BlobReader, into w: inout JSONWriter) throws(StoreError) {
        switch found.entry.kind {
        case .json:
            w.writeASCII("{\"found\":true,\"value\":")
            try value.read(inPiecesOf: 1 << 20) { w.writeRaw($0) }
        case .data:
            w.writeASCII("{\"found\":true,\"data\":\"")
            // Pieces of a multiple of three bytes: base64 with no padding between them.
            try value.read(inPiecesOf: 3 << 18) { Base64.encode($0, into: &w) }
            w.writeASCII("\"")
        case .object:
            var whole = found
            whole.entry.bytes = try value.readAll()
            return write(whole, into: &w)
        }
        writeState(found, into: &w)
    }

    /// The result: `{"found":false}`, or the entry with its metadata.
    struct Result: MethodResult {
        let json: JSON
    }

    /// A found entry as the protocol shows it, written straight into the
    /// output: a get is the hottest path, and building a tree only to walk it
    /// again would cost more than the lookup.
    static func write(_ found: Cache.Lookup, into w: inout JSONWriter) {
        w.writeASCII("{\"found\":true,")
        writeValue(kind: found.entry.kind, bytes: found.entry.bytes, into: &w)
        writeState(found, into: &w)
    }

    /// An entry's value as `cache.get` shows it — `"value":…` (an object's
    /// plain value, with its `type` and `version`) or `"data":"…"` — which
    /// events with values (`cache.evicted`, `cache.removed`) and fetched
    /// values show alike.
    @inline(__always)
    static func writeValue(kind: Entry.Kind, bytes: [UInt8], into w: inout JSONWriter) {
        switch kind {
        case .json:
            w.writeASCII("\"value\":")
            // Through the buffer, whose append is inlined: `writeRaw(_: [UInt8])` stays a call
            // here, and a memory hit cost about 20 instructions more with it (callgrind).
            bytes.withUnsafeBufferPointer { w.writeRaw($0) }
        case .data:
            w.writeASCII("\"data\":\"")
            bytes.withUnsafeBufferPointer { Base64.encode($0, into: &w) }
            w.writeASCII("\"")
        case .object:
            writeObject(bytes, into: &w)
        }
    }

    /// An object read as a plain entry: its value as stored, not migrated
    /// (an array of objects: the array of their values).
    @inline(never)
    private static func writeObject(_ bytes: [UInt8], into w: inout JSONWriter) {
        let stored = (try? JSONParser.parse(bytes)).flatMap(ObjectContent.init)
        w.writeASCII("\"value\":")
        w.write(stored?.plainValue ?? .null)
        if let stored {
            w.writeASCII(",\"type\":")
            w.writeString(stored.type)
            w.writeASCII(",\"version\":")
            w.writeString(stored.version.text)
            if stored.isArray { w.writeASCII(",\"form\":\"array\"") }
        }
    }

    /// A found entry's revision, whether it has expired, when it was stored
    /// and will expire, and its tier: what closes the result.
    @inline(__always)
    private static func writeState(_ found: Cache.Lookup, into w: inout JSONWriter) {
        let entry = found.entry
        w.writeASCII(",\"revision\":")
        w.writeInt(Int(entry.revision))
        w.writeASCII(found.expired ? ",\"expired\":true,\"storedAt\":\"" : ",\"expired\":false,\"storedAt\":\"")
        Timestamp.append(milliseconds: entry.storedAt, to: &w)
        if let expiresAt = found.expiresAt {
            w.writeASCII("\",\"expiresAt\":\"")
            Timestamp.append(milliseconds: expiresAt, to: &w)
        }
        w.writeASCII(found.tier == .memory ? "\",\"tier\":\"memory\"}" : "\",\"tier\":\"disk\"}")
    }
}
