import LarderCore
import LarderJSON
import LarderRPC

/// `migrate.object`: asks the client to carry out a `callback` step of a
/// migration (`ObjectFetch`).
enum MigrateObject: ServerRequestDefinition {
    static let method = "migrate.object"

    struct Params: OutgoingParams {
        static let members: [MessageMember] = [
            .required("type", .string), .required("key", .string), .required("cache", .string), .required("group", .string),
            .required("fromVersion", .string), .required("toVersion", .string), .required("value", .object),
            .optional("index", .integer),
        ]
        let question: CallbackRequest
        let cache: String
        let entry: EntryKey

        func write(into w: inout JSONWriter) {
            w.writeASCII("{\"type\":")
            w.writeString(question.type)
            w.writeASCII(",\"key\":")
            w.writeString(entry.key)
            w.writeASCII(",\"cache\":")
            w.writeString(cache)
            w.writeASCII(",\"group\":")
            w.writeString(entry.group)
            w.writeASCII(",\"fromVersion\":")
            w.writeString(question.fromVersion)
            w.writeASCII(",\"toVersion\":")
            w.writeString(question.toVersion)
            w.writeASCII(",\"value\":")
            w.write(question.value)
            if let index = question.index {
                w.writeASCII(",\"index\":")
                w.writeInt(index)
            }
            w.writeASCII("}")
        }
    }

    /// `{"value": OBJECT}` or `{"drop": true}`.
    struct Answer: AnswerObject {
        static let members: [MessageMember] = [.optional("value", .object), .optional("drop", .boolean)]
        let answer: CallbackAnswer

        init(_ o: JSONObject) throws(MalformedAnswer) {
            if o["drop"]?.boolValue == true {
                answer = .drop
            } else if let value = o["value"] {
                // One that is not an object fails the migration there, saying so.
                answer = .value(value)
            } else {
                throw .invalid("has neither value nor drop: \(JSON.object(o))")
            }
        }
    }

    /// A malformed answer fails the migration (-31031) with this reason.
    static func refusal(_ malformed: MalformedAnswer) -> ResponseError {
        switch malformed {
        case .notAnObject(let answer):
            return ResponseError(code: .invalidParams, message: "the answer to migrate.object has neither value nor drop: \(answer)")
        case .invalid(let why):
            return ResponseError(code: .invalidParams, message: "the answer to migrate.object \(why)")
        case .unknownMember:
            return ResponseError(code: .invalidParams, message: "the answer to migrate.object is not {value} or {drop: true}: \(malformed.reason)")
        }
    }
}
