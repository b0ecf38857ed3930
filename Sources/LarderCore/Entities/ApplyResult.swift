import LarderJSON

/// What an apply does with a reference to a record that exists neither in the batch nor in the store.
public enum MissingReferencePolicy: String, Sendable {
    /// The whole apply fails and nothing is written.
    case fail
    /// The reference is cleared and counted as unresolved.
    case null
}

/// What an apply did.
public struct ApplyResult: Equatable, Sendable {
    /// Records new to the store.
    public var inserted = 0
    /// Records that existed and were merged into.
    public var updated = 0
    /// To-one references set to a record that exists.
    public var linked = 0
    /// References cleared because their record exists nowhere (`onMissing: null`).
    public var unresolved = 0

    public init() {}
}
