import LarderJSON

/// A notification the server sends: its method name and its params.
///
/// Every notification the server sends is a type conforming to this,
/// listed once in the server's message table, and sent only through
/// `Connection.send(_:_:)`, so that what leaves is what openrpc.json's
/// `x-notifications` documents (a contract test compares the two).
public protocol NotificationDefinition {
    associatedtype Params: OutgoingParams
    /// The JSON-RPC method name.
    static var method: String { get }
}
