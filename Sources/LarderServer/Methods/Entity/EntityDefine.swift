import LarderCore
import LarderJSON
import LarderRPC

/// `entity.define`: creates a model's tables, or adds new entities and
/// optional attributes to them in place; any other change is refused (-31041).
enum EntityDefine: MethodHandler {
    static let method = "entity.define"
    static let requiredParams = ["model", "entities"]
    static let definitionMembers: Set<String> = ["model", "entities", "casing", "dateFormat", "reservedWords"]

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        let name = try r.params.require("model", as: String.self)
        _ = try r.params.require("entities", as: [JSON].self)
        let store = r.server.store
        // Only the definition's own members: like every method, this one ignores parameters it does not know.
        let definition = JSONObject(r.params.object.members.filter { definitionMembers.contains($0.key) }.map { ($0.key, $0.value) })
        let model = try r.server.core { () throws(StoreError) in try EntityModel(definition: .object(definition)) }
        let result = try r.server.core { () throws(StoreError) in try store.define(model) }
        return .afterCommit([
            "model": .string(name), "created": .bool(result.created),
            "newEntities": .array(result.newEntities.map(JSON.string)),
            "added": .array(result.addedMembers.map(JSON.string)),
        ])
    }
}
