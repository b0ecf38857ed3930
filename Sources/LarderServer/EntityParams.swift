import LarderCore
import LarderJSON
import LarderRPC

/// Parameters the `entity.*` methods share, and how their results read.
extension Params {
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
            throw .invalidParams("\(path).onMissing must be \"fail\" or \"null\", not \"\(text)\"")
        }
        return policy
    }

    /// `include`: relationship paths such as "members.musician".
    func includePaths() throws(ResponseError) -> [String] {
        try optional("include", as: [String].self) ?? []
    }
}

extension ApplyResult {
    var json: JSON {
        ["inserted": .int(inserted), "updated": .int(updated), "linked": .int(linked), "unresolved": .int(unresolved)]
    }
}
