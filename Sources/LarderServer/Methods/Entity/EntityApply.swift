import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.apply`: writes everything staged in one transaction and answers
/// once. A reference to a record that exists nowhere fails the whole apply
/// (-31042) and keeps the batch, unless `onMissing` is "null".
enum EntityApply: MethodDefinition {
    static let method = "entity.apply"

    struct Params: ParamsObject {
        static let members = ["onMissing"]
        let onMissing: MissingReferencePolicy
        init(_ p: ParamsReader) throws(ResponseError) { onMissing = try p.missingReferencePolicy() }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        return .afterCommit(Result(counts: try r.server.mappingStoreErrors { () throws(StoreError) in try store.applyStaged(onMissing: p.onMissing) }))
    }

    typealias Result = ApplyResultJSON
}
