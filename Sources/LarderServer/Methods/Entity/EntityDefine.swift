import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// `entity.define`: creates a model's tables, or adds new entities and
/// optional attributes to them in place; any other change is refused (-31041).
enum EntityDefine: MethodDefinition {
    static let method = "entity.define"

    struct Params: ParamsObject {
        /// The definition's members: the params are the definition.
        static let members = EntityModel.members
        static let requiredMembers = ["model", "entities"]
        let model: EntityModel

        init(_ p: ParamsReader) throws(ResponseError) {
            _ = try p.require("model", as: String.self)
            _ = try p.require("entities", as: [JSON].self)
            model = try Server.mappingStoreErrors { () throws(StoreError) in try EntityModel(definition: .object(p.object)) }
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let store = r.server.store
        let result = try r.server.mappingStoreErrors { () throws(StoreError) in try store.define(p.model) }
        return .afterCommit(Result(model: p.model.name, created: result.created, newEntities: result.newEntities, added: result.addedMembers))
    }

    struct Result: MethodResult {
        let model: String
        /// The model was new.
        let created: Bool
        /// Entities added to an existing model.
        let newEntities: [String]
        /// Attributes and relationships added to existing entities, as "Entity.member".
        let added: [String]

        var json: JSON {
            ["model": .string(model), "created": .bool(created),
             "newEntities": .array(newEntities.map(JSON.string)), "added": .array(added.map(JSON.string))]
        }
    }
}
