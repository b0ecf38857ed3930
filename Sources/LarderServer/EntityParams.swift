import LarderCore
import LarderJSON
import LarderRPC

/// Parameters the `entity.*` methods share.
extension ParamsReader {
    /// `entity`: the name of a defined entity.
    func entityName() throws(ResponseError) -> String {
        try nonEmptyKey(try require("entity", as: String.self), at: "\(path).entity")
    }

    /// `records`: an array of JSON records in the model's casing.
    func entityRecords() throws(ResponseError) -> [JSON] {
        try require("records", as: [JSON].self)
    }

    /// `onMissing`: "fail" (the default) or "null".
    func missingReferencePolicy() throws(ResponseError) -> MissingReferencePolicy {
        guard let text = try optional("onMissing", as: String.self) else { return .fail }
        guard let policy = MissingReferencePolicy(rawValue: text) else {
            throw .invalidParams("\(path).onMissing must be \"fail\" or \"null\", not \"\(text.echoed)\"")
        }
        return policy
    }

    /// `include`: relationship paths such as "members.musician".
    func includePaths() throws(ResponseError) -> [String] {
        try optional("include", as: [String].self) ?? []
    }
}

/// What `entity.apply` and `entity.upsert` answer.
struct ApplyResultJSON: MethodResult {
    let counts: ApplyResult
    var json: JSON {
        ["inserted": .int(counts.inserted), "updated": .int(counts.updated), "linked": .int(counts.linked),
         "unresolved": .int(counts.unresolved)]
    }
}

/// What `entity.render` and `entity.parse` answer: the record in the other form.
struct ConvertedRecord: MethodResult {
    let record: JSON
    var json: JSON { ["record": record] }
}

/// The params of the methods that name one record: `entity`, `id`, `include`.
struct RecordParams: ParamsObject {
    static let members = ["entity", "id", "include"]
    static let requiredMembers = ["entity", "id"]
    let entity: String
    let id: JSON
    let include: [String]

    init(_ p: ParamsReader) throws(ResponseError) {
        entity = try p.entityName()
        id = try p.require("id", as: JSON.self)
        include = try p.includePaths()
    }
}
