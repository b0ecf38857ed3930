import LarderJSON
import LarderStorage

extension JSONObject {
    /// Refuses a member not among `known` (see `UnknownMember`).
    func checkMembers(_ known: [String], at path: String) throws(StoreError) {
        if let unknown = unknownMember(knowing: known, at: path) { throw .unknownMember(unknown) }
    }
}
