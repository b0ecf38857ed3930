import LarderStorage

/// A NOTIFY another session (or this one) sent on a channel this connection listens to.
public struct PostgresNotification: Equatable, Sendable {
    public let channel: String
    public let payload: String
    /// The process ID of the server process of the session that notified.
    public let senderPID: Int32
}
