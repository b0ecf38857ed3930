import LarderJSON

/// `$/progress` (LSP's work done progress): how far a request given a
/// `workDoneToken` has come, begun, reported on, and ended.
public enum WorkDoneProgress: NotificationDefinition {
    public static let method = "$/progress"

    public struct Params: OutgoingParams {
        public static let members: [MessageMember] = [.required("token", [.string, .number]), .required("value", .object)]
        /// The client's `workDoneToken`, as it sent it.
        public let token: JSON
        public let value: Value

        public init(token: JSON, value: Value) {
            self.token = token
            self.value = value
        }

        public func write(into w: inout JSONWriter) {
            w.writeASCII("{\"token\":")
            w.write(token)
            w.writeASCII(",\"value\":")
            value.write(into: &w)
            w.writeASCII("}")
        }
    }

    /// LSP's `WorkDoneProgressBegin`, `Report` and `End`.
    public enum Value: Sendable {
        case begin(title: String, cancellable: Bool, percentage: Int, message: String)
        case report(percentage: Int, message: String)
        case end(message: String)

        func write(into w: inout JSONWriter) {
            switch self {
            case .begin(let title, let cancellable, let percentage, let message):
                w.writeASCII("{\"kind\":\"begin\",\"title\":")
                w.writeString(title)
                w.writeASCII(cancellable ? ",\"cancellable\":true,\"percentage\":" : ",\"cancellable\":false,\"percentage\":")
                w.writeInt(percentage)
                w.writeASCII(",\"message\":")
                w.writeString(message)
            case .report(let percentage, let message):
                w.writeASCII("{\"kind\":\"report\",\"percentage\":")
                w.writeInt(percentage)
                w.writeASCII(",\"message\":")
                w.writeString(message)
            case .end(let message):
                w.writeASCII("{\"kind\":\"end\",\"message\":")
                w.writeString(message)
            }
            w.writeASCII("}")
        }
    }
}
