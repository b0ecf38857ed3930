import LarderCore
import LarderJSON
import LarderRPC

/// Larder's own error codes, outside JSON-RPC's reserved -32768...-32000.
extension ErrorCode {
    public static let storeUnavailable = ErrorCode(rawValue: -31000)
    public static let storageFailure = ErrorCode(rawValue: -31001)
    public static let storeLocked = ErrorCode(rawValue: -31002)
    public static let cacheNotFound = ErrorCode(rawValue: -31010)
}

extension StoreError {
    /// The one mapping from core errors to the protocol.
    var responseError: ResponseError {
        switch self {
        case .unavailable(let path, let reason):
            return ResponseError(code: .storeUnavailable, message: "store unavailable at \(path): \(reason)",
                                 data: ["path": .string(path)])
        case .storage(let code, let message) where code & 0xFF == 5 || code & 0xFF == 6:
            // SQLITE_BUSY or SQLITE_LOCKED after the busy timeout: another process holds the store.
            return ResponseError(code: .storeLocked, message: "the store is locked by another process: \(message)",
                                 data: ["sqliteCode": .int(Int(code))])
        case .storage(let code, let message):
            return ResponseError(code: .storageFailure, message: "storage failure: \(message)",
                                 data: ["sqliteCode": .int(Int(code))])
        case .cacheNotFound(let name):
            return ResponseError(code: .cacheNotFound, message: "no cache named \"\(name)\"", data: ["cache": .string(name)])
        case .invalidArgument(let field, let reason):
            return .invalidParams("\(field): \(reason)")
        }
    }
}
