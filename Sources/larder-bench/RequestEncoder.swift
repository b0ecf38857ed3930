/// Encodes Larder requests as bytes, with ids unique within one connection.
struct RequestEncoder {
    private(set) var nextID = 1

    private mutating func begin(_ b: inout [UInt8], _ method: String) {
        b += Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        b += Array(String(nextID).utf8)
        nextID += 1
        b += Array(#","method":""#.utf8)
        b += Array(method.utf8)
        b += Array(#"","params":"#.utf8)
    }

    private static func cacheMember(_ cache: String) -> [UInt8] { Array(#"{"cache":""#.utf8) + Array(cache.utf8) + Array(#"","key":""#.utf8) }

    /// A whole line for a setup call, params given as JSON text.
    mutating func line(_ method: String, params: String) -> [UInt8] {
        var b: [UInt8] = []
        begin(&b, method)
        b += Array(params.utf8)
        b += [UInt8(ascii: "}"), 0x0A]
        return b
    }

    /// A request whose params `params` appends as JSON (an object, written whole).
    mutating func request(_ batch: inout RequestBatch, _ method: String, params: (inout [UInt8]) -> Void) {
        begin(&batch.bytes, method)
        params(&batch.bytes)
        batch.bytes.append(UInt8(ascii: "}"))
        batch.endRequest()
    }

    mutating func get(_ batch: inout RequestBatch, cache: String, keys: KeySpace, _ n: Int, method: String = "cache.get") {
        begin(&batch.bytes, method)
        batch.bytes += Self.cacheMember(cache)
        keys.append(n, to: &batch.bytes)
        batch.bytes += Array(#""}}"#.utf8)
        batch.endRequest()
    }

    mutating func set(_ batch: inout RequestBatch, cache: String, keys: KeySpace, _ n: Int, value: [UInt8]) {
        begin(&batch.bytes, "cache.set")
        batch.bytes += Self.cacheMember(cache)
        keys.append(n, to: &batch.bytes)
        batch.bytes += Array(#"","value":"#.utf8)
        batch.bytes += value
        batch.bytes += Array("}}".utf8)
        batch.endRequest()
    }

    mutating func setMany(_ batch: inout RequestBatch, cache: String, keys: KeySpace, _ numbers: Range<Int>, value: [UInt8]) {
        begin(&batch.bytes, "cache.setMany")
        batch.bytes += Array(#"{"cache":""#.utf8) + Array(cache.utf8) + Array(#"","entries":["#.utf8)
        for n in numbers {
            if n != numbers.lowerBound { batch.bytes.append(UInt8(ascii: ",")) }
            batch.bytes += Array(#"{"key":""#.utf8)
            keys.append(n, to: &batch.bytes)
            batch.bytes += Array(#"","value":"#.utf8)
            batch.bytes += value
            batch.bytes.append(UInt8(ascii: "}"))
        }
        batch.bytes += Array("]}}".utf8)
        batch.endRequest()
    }
}
