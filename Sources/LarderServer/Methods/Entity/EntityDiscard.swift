import LarderCore
import LarderJSON
import LarderRPC

/// `entity.discard`: drops the staged batch.
enum EntityDiscard: MethodHandler {
    static let method = "entity.discard"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        .result(["discarded": .int(r.server.store.discardStaged())])
    }
}
