import LarderCore
import LarderJSON
import LarderRPC

/// `cache.fetch`: asks the client for the value of a key `cache.getOrFetch`
/// missed, once per attempt (`FetchFlights`).
enum CacheFetch: ServerRequestDefinition {
    static let method = "cache.fetch"

    struct Params: OutgoingParams {
        static let members: [MessageMember] = [
            .required("cache", .string), .required("group", .string), .required("key", .string), .required("attempt", .integer),
        ]
        let cache: String
        let entry: EntryKey
        /// 1 for the first attempt, 2 for the first retry, …
        let attempt: Int

        func write(into w: inout JSONWriter) {
            FetchAnswer.writeEntry(cache: cache, entry, into: &w)
            w.writeASCII(",\"attempt\":")
            w.writeInt(attempt)
            w.writeASCII("}")
        }
    }

    typealias Answer = FetchAnswer

    static func refusal(_ malformed: MalformedAnswer) -> ResponseError { FetchAnswer.refusal(malformed) }
}
