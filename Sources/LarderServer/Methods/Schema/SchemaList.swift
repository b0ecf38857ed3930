import LarderCore
import LarderJSON
import LarderRPC

/// `schema.list`: every registered type with its versions.
enum SchemaList: MethodHandler {
    static let method = "schema.list"

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let store = r.server.store
        let types = try r.server.core { () throws(StoreError) -> [JSON] in
            var result: [JSON] = []
            for t in try store.schemaTypes() {
                let versions = try store.versions(of: t)
                var o: JSONObject = ["type": .string(t), "versions": .array(versions.map { .string($0.version.text) }),
                                     "newest": .string(versions.last?.version.text ?? "")]
                if let parent = versions.last?.parent { o["parent"] = .string(parent) }
                result.append(.object(o))
            }
            return result
        }
        return .result(["types": .array(types)])
    }
}
