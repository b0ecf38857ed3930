import LarderJSON

/// `$/cancelRequest` as the server sends it (LSP's): it no longer waits for
/// the answer to one of its requests (`Connection.abandon`).
public enum CancelRequestNotification: NotificationDefinition {
    public static let method = "$/cancelRequest"

    public struct Params: OutgoingParams {
        public static let members: [MessageMember] = [.required("id", .string)]
        /// One of the server's own ids, always a string (`larder-7`).
        public let id: RequestID

        public func write(into w: inout JSONWriter) {
            w.writeASCII("{\"id\":")
            w.write(id.json)
            w.writeASCII("}")
        }
    }
}
