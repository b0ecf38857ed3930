/// What must hold of a key's live entry for a write to go ahead (SPEC 6.14).
/// An expired entry is no live entry, unless its cache returns expired entries.
public enum WriteCondition: Equatable, Sendable {
    /// The live entry is at this revision.
    case revision(Int64)
    /// There is no live entry.
    case absent
}
