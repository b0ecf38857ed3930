import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `schema.get`: one version's definition (the newest by default), and the list of registered versions.
enum SchemaGet: MethodDefinition {
    static let method = "schema.get"

    struct Params: ParamsObject {
        static let members = ["type", "version"]
        static let requiredMembers = ["type"]
        let type: String
        /// Nil: the newest.
        let version: String?

        init(_ p: ParamsReader) throws(ResponseError) {
            type = try p.require("type", as: String.self)
            version = try p.optional("version", as: String.self)
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let versions = try r.server.mappingStoreErrors { () throws(StoreError) in try store.versions(of: p.type) }
        guard let newest = versions.last else { throw StoreError.schemaNotFound(p.type).responseError }
        var schema = newest
        if let wanted = p.version {
            guard let v = SchemaVersion(wanted), let match = versions.first(where: { $0.version == v }) else {
                let (type, version) = (p.type.echoed, wanted.echoed)
                throw .requestFailed("\(type) has no version \(version)", data: ["type": .string(type), "version": .string(version)])
            }
            schema = match
        }
        return .result(Result(schema: schema, versions: versions.map(\.version.text)))
    }

    struct Result: MethodResult {
        let schema: TypeSchema
        /// Every registered version, oldest first.
        let versions: [String]
        var json: JSON { ["schema": schema.json, "versions": .array(versions.map(JSON.string))] }
    }
}
