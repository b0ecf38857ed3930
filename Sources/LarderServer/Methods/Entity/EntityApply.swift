import LarderCore
import LarderJSON
import LarderRPC

/// `entity.apply`: writes everything staged in one transaction and answers
/// once. A reference to a record that exists nowhere fails the whole apply
/// (-31042) and keeps the batch, unless `onMissing` is "null".
enum EntityApply: MethodHandler {
    static let method = "entity.apply"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let policy = try r.params.missingReferencePolicy()
        let store = r.server.store
        let result = try r.server.core { () throws(StoreError) in try store.applyStaged(onMissing: policy) }
        return .afterCommit(result.json)
    }
}
