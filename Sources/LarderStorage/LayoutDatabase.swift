/// What `StoreLayout` needs of a database to bring its layout up to date;
/// each engine's store conforms.
public protocol LayoutDatabase {
    var dialect: SQLDialect { get }
    /// Where the store is, for messages.
    var location: String { get }
    /// Runs `body` in a transaction that holds the store's lock against other
    /// processes bringing it up to date: committed if it returns.
    func whileHoldingLayoutLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T
    /// Runs statements that take no parameters and return no rows.
    func execute(_ sql: String) throws(StoreError)
    /// The engine's own counter of the layout (see `StoreLayout`): 0 in a new store.
    func layoutCounter() throws(StoreError) -> Int64
    func setLayoutCounter(_ value: Int64) throws(StoreError)
    /// The names in `layout_steps`.
    func recordedSteps() throws(StoreError) -> [String]
}
