/// A database an engine opened behind the seam, with its layout to bring up
/// to date: what a store is made from (`Store(_:clock:)` in the core).
public struct OpenedDatabase {
    public let connection: any SQLConnection
    public let layout: any LayoutDatabase
    /// How other writers' commits are noticed; nil when nobody else can write.
    public let otherWriters: (any OtherWriters)?

    public init(connection: any SQLConnection, layout: any LayoutDatabase, otherWriters: (any OtherWriters)?) {
        self.connection = connection
        self.layout = layout
        self.otherWriters = otherWriters
    }
}
