import LarderCore
import LarderJSON
import LarderRPC

/// `cache.fallback`: asks the client for a value to answer with when every
/// attempt of a fetch failed (`FetchFlights`).
enum CacheFallback: ServerRequestDefinition {
    static let method = "cache.fallback"

    struct Params: OutgoingParams {
        static let members: [MessageMember] = [
            .required("cache", .string), .required("group", .string), .required("key", .string), .required("error", .object),
        ]
        let cache: String
        let entry: EntryKey
        /// The last attempt's error.
        let error: ResponseError

        func write(into w: inout JSONWriter) {
            FetchAnswer.writeEntry(cache: cache, entry, into: &w)
            w.writeASCII(",\"error\":")
            w.write(error.json)
            w.writeASCII("}")
        }
    }

    typealias Answer = FetchAnswer

    static func refusal(_ malformed: MalformedAnswer) -> ResponseError { FetchAnswer.refusal(malformed) }
}
