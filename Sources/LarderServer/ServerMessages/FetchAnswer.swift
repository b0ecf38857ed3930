import LarderCore
import LarderJSON
import LarderRPC

/// The client's answer to `cache.fetch` or `cache.fallback`: `{value}` or
/// `{data}` (with an optional `ttl` in seconds), or `{found: false}`.
struct FetchAnswer: AnswerObject {
    static let members: [MessageMember] = [
        .optional("value", .any), .optional("data", .string), .optional("ttl", .number), .optional("found", .boolean),
    ]

    enum Found {
        case value(kind: Entry.Kind, bytes: [UInt8], ttl: Int64?)
        case notFound
    }
    let found: Found

    init(_ o: JSONObject) throws(MalformedAnswer) {
        var ttl: Int64?
        if let t = o["ttl"], !t.isNull {
            guard let s = t.numberValue?.double, let ms = ParamRules.milliseconds(seconds: s) else {
                throw .invalid("ttl must be a non-negative number of seconds")
            }
            ttl = ms
        }
        // A null value is the value null; a null data, no data.
        switch (o["value"], o["data"].flatMap { $0.isNull ? nil : $0 }) {
        case (let value?, nil):
            guard o["found"] == nil || o["found"] == true else { throw .invalid("found: false with a value") }
            found = .value(kind: .json, bytes: value.encoded, ttl: ttl)
        case (nil, let data?):
            guard case .string(let text) = data, let bytes = Base64.decode(text) else {
                throw .invalid("data must be standard base64 with padding")
            }
            found = .value(kind: .data, bytes: bytes, ttl: ttl)
        case (nil, nil):
            guard o["found"] == false else { throw .invalid("neither value nor data, and no found: false") }
            found = .notFound
        case (_?, _?):
            throw .invalid("both value and data")
        }
    }

    /// A malformed answer is a failed attempt, with this error.
    static func refusal(_ malformed: MalformedAnswer) -> ResponseError {
        ResponseError(code: .invalidParams, message: "the client's answer is not {value}, {data} or {found: false}: \(malformed.reason)")
    }

    /// The params both requests begin with, up to the next member.
    static func writeEntry(cache: String, _ entry: EntryKey, into w: inout JSONWriter) {
        w.writeASCII("{\"cache\":")
        w.writeString(cache)
        w.writeASCII(",\"group\":")
        w.writeString(entry.group)
        w.writeASCII(",\"key\":")
        w.writeString(entry.key)
    }
}
