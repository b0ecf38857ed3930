#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderJSON

/// A request read in place from its bytes: where its id, method and
/// parameters are, with nothing decoded or copied.
///
/// Only the plainest requests are read this way: one object with exactly
/// `jsonrpc` "2.0", an id (a number or a string without escapes), a method
/// (a string without escapes) and a `params` object of at most
/// `ParamsView.capacity` distinct members whose values are compact JSON
/// (`CompactJSON`). Anything else yields nil and takes the ordinary path,
/// which also gives malformed input its proper error.
package struct RequestView {
    package let body: UnsafeBufferPointer<UInt8>
    /// The id as written: a number literal, or a string with its quotes.
    package let idText: UnsafeBufferPointer<UInt8>
    /// The method name, between its quotes.
    package let method: UnsafeBufferPointer<UInt8>
    package let params: ParamsView

    /// The id, decoded (answers that leave later need it beyond the body's life).
    package var id: RequestID {
        if idText.first == UInt8(ascii: "\"") {
            return .string(String(decoding: UnsafeBufferPointer(rebasing: idText.dropFirst().dropLast()), as: UTF8.self))
        }
        return .number(JSONNumber(validLiteral: String(decoding: idText, as: UTF8.self)))
    }

    package func methodIs(_ name: StaticString) -> Bool {
        ByteText.equal(method, name)
    }

    /// Reads `body` as a plain request for one of `methods`, or returns nil.
    /// The method is checked before the parameters are scanned, so requests
    /// for other methods cost only the envelope's first bytes.
    fileprivate static func read(_ body: UnsafeBufferPointer<UInt8>, methods: UnsafeBufferPointer<StaticString>,
                                 into table: RequestReader) -> RequestView? {
        guard !methods.isEmpty, body.count < Int(Int32.max) else { return nil }
        switch readUsualLayout(body, methods: methods, table) {
        case .read(let view): return view
        case .notPlain: return nil
        case .otherLayout: return readAnyLayout(body, methods: methods, table)
        }
    }

    private enum UsualLayout {
        case read(RequestView)
        /// The usual layout, but not a plain request for one of the methods.
        case notPlain
        case otherLayout
    }

    /// The layout the clients here (and most others) write: the members in
    /// this order, no spaces. Three comparisons replace reading four names.
    private static func readUsualLayout(_ body: UnsafeBufferPointer<UInt8>, methods: UnsafeBufferPointer<StaticString>,
                                        _ table: RequestReader) -> UsualLayout {
        var r = ByteReader(body)
        guard r.take(#"{"jsonrpc":"2.0","id":"#), let id = r.requestID(), r.take(#","method":"#),
              let method = r.plainString(), r.take(#","params":"#) else { return .otherLayout }
        guard Self.isOne(of: methods, r.slice(method)) else { return .notPlain }
        guard let params = ParamsView.read(&r, into: table), r.take("}"), r.atEnd else { return .otherLayout }
        return .read(RequestView(body: body, idText: r.slice(id), method: r.slice(method), params: params))
    }

    private static func readAnyLayout(_ body: UnsafeBufferPointer<UInt8>, methods: UnsafeBufferPointer<StaticString>,
                                      _ table: RequestReader) -> RequestView? {
        var r = ByteReader(body)
        r.skipWhitespace()
        guard r.take(UInt8(ascii: "{")) else { return nil }
        var version = false
        var id: Range<Int>?, method: Range<Int>?, params: ParamsView?
        repeat {
            r.skipWhitespace()
            guard let name = r.plainString() else { return nil }
            r.skipWhitespace()
            guard r.take(UInt8(ascii: ":")) else { return nil }
            r.skipWhitespace()
            let nameBytes = r.slice(name)
            if ByteText.equal(nameBytes, "jsonrpc") {
                guard !version, let v = r.plainString(), ByteText.equal(r.slice(v), "2.0") else { return nil }
                version = true
            } else if ByteText.equal(nameBytes, "id") {
                guard id == nil, let i = r.requestID() else { return nil }
                id = i
            } else if ByteText.equal(nameBytes, "method") {
                guard method == nil, let m = r.plainString(), Self.isOne(of: methods, r.slice(m)) else { return nil }
                method = m
            } else if ByteText.equal(nameBytes, "params") {
                guard params == nil, let p = ParamsView.read(&r, into: table) else { return nil }
                params = p
            } else {
                return nil
            }
            r.skipWhitespace()
        } while r.take(UInt8(ascii: ","))
        guard r.take(UInt8(ascii: "}")) else { return nil }
        r.skipWhitespace()
        guard r.atEnd, version, let id, let method, let params else { return nil }
        return RequestView(body: body, idText: r.slice(id), method: r.slice(method), params: params)
    }

    private static func isOne(of methods: UnsafeBufferPointer<StaticString>, _ method: UnsafeBufferPointer<UInt8>) -> Bool {
        methods.contains { ByteText.equal(method, $0) }
    }
}

/// The members of a request's `params` object, located in place.
package struct ParamsView {
    /// More members than this and the request takes the ordinary path (the
    /// methods answered directly take at most five).
    package static let capacity = 6

    /// Where one member is in the body.
    struct Member {
        var nameStart: Int32 = 0, nameEnd: Int32 = 0, valueStart: Int32 = 0, valueEnd: Int32 = 0
        /// The value is a string without escapes (found while reading, so never scanned twice).
        var isPlainString = false
        var name: Range<Int> { Int(nameStart)..<Int(nameEnd) }
        var value: Range<Int> { Int(valueStart)..<Int(valueEnd) }
    }

    private let body: UnsafeBufferPointer<UInt8>
    private let members: UnsafeMutablePointer<Member>
    package private(set) var count = 0

    private init(body: UnsafeBufferPointer<UInt8>, table: RequestReader) {
        self.body = body
        members = table.members
    }

    /// One member's value.
    package enum Value {
        case absent
        /// A string without escapes: its bytes, between the quotes, are its value.
        case plainString(UnsafeBufferPointer<UInt8>)
        /// Any other value, as compact JSON text.
        case other(UnsafeBufferPointer<UInt8>)

        package var isPresent: Bool {
            if case .absent = self { return false }
            return true
        }
    }

    package subscript(name: StaticString) -> Value {
        guard let m = member(name) else { return .absent }
        let base = body.baseAddress!
        if m.isPlainString {
            return .plainString(UnsafeBufferPointer(start: base + Int(m.valueStart) + 1, count: Int(m.valueEnd - m.valueStart) - 2))
        }
        return .other(UnsafeBufferPointer(start: base + Int(m.valueStart), count: Int(m.valueEnd - m.valueStart)))
    }

    /// A member's value as compact JSON text.
    package func text(_ name: StaticString) -> UnsafeBufferPointer<UInt8>? {
        guard let m = member(name) else { return nil }
        return UnsafeBufferPointer(start: body.baseAddress! + Int(m.valueStart), count: Int(m.valueEnd - m.valueStart))
    }

    private func member(_ name: StaticString) -> Member? {
        let n = name.utf8CodeUnitCount
        for k in 0..<count {
            let m = members[k]
            if Int(m.nameEnd - m.nameStart) == n && ByteText.same(body.baseAddress! + Int(m.nameStart), name.utf8Start, n) { return m }
        }
        return nil
    }

    private mutating func append(_ m: Member) {
        members[count] = m
        count += 1
    }

    /// Reads an object of distinct plainly-named members with compact values.
    fileprivate static func read(_ r: inout ByteReader, into table: RequestReader) -> ParamsView? {
        guard r.take(UInt8(ascii: "{")) else { return nil }
        var view = ParamsView(body: r.bytes, table: table)
        r.skipWhitespace()
        if r.take(UInt8(ascii: "}")) { return view }
        repeat {
            r.skipWhitespace()
            guard view.count < capacity, let name = r.plainString() else { return nil }
            for k in 0..<view.count where ByteText.equal(r.slice(view.members[k].name), r.slice(name)) { return nil }
            r.skipWhitespace()
            guard r.take(UInt8(ascii: ":")) else { return nil }
            r.skipWhitespace()
            let plainEnd = r.peek == UInt8(ascii: "\"") ? CompactJSON.plainStringEnd(in: r.bytes, from: r.i) : nil
            guard let end = plainEnd ?? CompactJSON.valueEnd(in: r.bytes, from: r.i) else { return nil }
            view.append(Member(nameStart: Int32(name.lowerBound), nameEnd: Int32(name.upperBound),
                               valueStart: Int32(r.i), valueEnd: Int32(end), isPlainString: plainEnd != nil))
            r.i = end
            r.skipWhitespace()
        } while r.take(UInt8(ascii: ","))
        guard r.take(UInt8(ascii: "}")) else { return nil }
        return view
    }
}

/// Reads plain requests for a fixed set of methods in place (`RequestView`).
///
/// It holds the methods and room for one request's `params` members, reused
/// from request to request, in memory of its own: reading a request then
/// allocates nothing and counts no references. A view it returns is valid
/// while its body is and until the next read. Its owner deallocates it.
package struct RequestReader {
    private let methods: UnsafeMutableBufferPointer<StaticString>
    let members: UnsafeMutablePointer<ParamsView.Member>

    package static func allocate(methods: [StaticString]) -> RequestReader {
        let members = UnsafeMutablePointer<ParamsView.Member>.allocate(capacity: ParamsView.capacity)
        members.initialize(repeating: ParamsView.Member(), count: ParamsView.capacity)
        let names = UnsafeMutableBufferPointer<StaticString>.allocate(capacity: methods.count)
        _ = names.initialize(from: methods)
        return RequestReader(methods: names, members: members)
    }

    package func deallocate() {
        members.deallocate()
        methods.deallocate()
    }

    /// `body` as a plain request for one of the methods, or nil.
    package func read(_ body: UnsafeBufferPointer<UInt8>) -> RequestView? {
        RequestView.read(body, methods: UnsafeBufferPointer(methods), into: self)
    }
}

/// A cursor over a message's bytes.
private struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func skipWhitespace() {
        while i < bytes.count {
            let b = bytes[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    mutating func take(_ b: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == b else { return false }
        i += 1
        return true
    }

    /// Takes `text` if the bytes at the cursor are exactly it.
    mutating func take(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard bytes.count - i >= n, memcmp(bytes.baseAddress! + i, text.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }

    /// An id: a number, or a string without escapes (with its quotes).
    mutating func requestID() -> Range<Int>? {
        let start = i
        guard let at = peek else { return nil }
        if at == UInt8(ascii: "\"") {
            guard plainString() != nil else { return nil }
        } else {
            guard at == UInt8(ascii: "-") || (at &- UInt8(ascii: "0")) < 10,
                  let end = CompactJSON.valueEnd(in: bytes, from: i) else { return nil }
            i = end
        }
        return start..<i
    }

    /// A string without escapes; returns the range between its quotes.
    mutating func plainString() -> Range<Int>? {
        guard let end = CompactJSON.plainStringEnd(in: bytes, from: i) else { return nil }
        defer { i = end }
        return (i + 1)..<(end - 1)
    }

    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }
}

/// Byte comparisons of the short names and keys requests are made of.
enum ByteText {
    @inline(__always)
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        guard bytes.count == n else { return false }
        return n == 0 || same(bytes.baseAddress!, name.utf8Start, n)
    }

    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && (a.count == 0 || same(a.baseAddress!, b.baseAddress!, a.count))
    }

    /// Whether `n` bytes at `a` and `b` are the same: up to 16 bytes as two
    /// (overlapping) words each, which costs less than calling `memcmp`.
    @inline(__always)
    static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
        switch n {
        case 0..<4:
            for k in 0..<n where a[k] != b[k] { return false }
            return true
        case 4..<8:
            return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
                && x.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == y.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        case 8...16:
            return x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
                && x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        default:
            return memcmp(a, b, n) == 0
        }
    }
}
