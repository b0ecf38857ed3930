import LarderCore
import LarderJSON
import LarderRPC

/// `schema.get`: one version's definition (the newest by default), and the list of registered versions.
enum SchemaGet: MethodHandler {
    static let method = "schema.get"
    static let requiredParams = ["type"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let type = try r.params.require("type", as: String.self)
        let wanted = try r.params.optional("version", as: String.self)
        let store = r.server.store
        let versions = try r.server.core { () throws(StoreError) in try store.versions(of: type) }
        guard let newest = versions.last else { throw StoreError.schemaNotFound(type).responseError }
        var schema = newest
        if let wanted {
            guard let v = SchemaVersion(wanted), let match = versions.first(where: { $0.version == v }) else {
                throw .requestFailed("\(type) has no version \(wanted)", data: ["type": .string(type), "version": .string(wanted)])
            }
            schema = match
        }
        return .result(["schema": schema.json, "versions": .array(versions.map { .string($0.version.text) })])
    }
}
