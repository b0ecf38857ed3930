/// How a store notices that another writer — another process on the same
/// file, another sidecar on the same server — committed.
///
/// What a commit changed travels as the store's own encoding (`ChangeRecord`
/// in the core, which knows what a cache entry is); the engine keeps and
/// hands back those bytes without reading them.
public protocol OtherWriters: AnyObject {
    /// Notes where the store stands now: commits from here on are news.
    func start() throws(StoreError)
    func stop()
    /// What other writers changed since the last look (this writer's own
    /// commits are not news); nil for nothing. Asked once per burst of input
    /// (outside a transaction) and at the start of each write transaction
    /// (then the answer must be exact): cheap when nothing happened.
    func changesSinceLastLook() throws(StoreError) -> ForeignChanges?
    /// This writer's transaction is about to commit, having changed what
    /// `changes` says (encoded; nil: anything): its last writes go in it
    /// here. Asked only of writers that record changes (`recordsChanges`).
    func transactionWillCommit(_ changes: [UInt8]?) throws(StoreError)
    /// ... and committed.
    func transactionDidCommit()
    /// Whether other writers learn which entries each commit changed (else
    /// only that something changed), so that writes should note them.
    var recordsChanges: Bool { get }
}

extension OtherWriters {
    public func transactionWillCommit(_ changes: [UInt8]?) throws(StoreError) {}
    public func transactionDidCommit() {}
    public var recordsChanges: Bool { false }
}

/// What other writers committed since a writer last looked.
public enum ForeignChanges: Sendable, Equatable {
    /// Anything may have changed.
    case everything
    /// The other writers cannot be asked: anything may have changed, and
    /// nothing held from the store may be trusted until they can.
    case unknown
    /// What each commit said it changed, as its writer encoded it (nil: anything).
    case recorded([[UInt8]?])
}
