import LarderCore
import LarderJSON
import LarderRPC

/// `entity.discard`: drops the staged batch.
enum EntityDiscard: MethodDefinition {
    static let method = "entity.discard"
    typealias Params = NoParams

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        .result(Result(discarded: r.server.store.discardStaged()))
    }

    struct Result: MethodResult {
        /// How many staged records were dropped.
        let discarded: Int
        var json: JSON { ["discarded": .int(discarded)] }
    }
}
