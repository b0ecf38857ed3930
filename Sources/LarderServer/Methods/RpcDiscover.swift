import LarderJSON
import LarderRPC

/// `rpc.discover`: the OpenRPC document describing every method (protocol/openrpc.json, compiled in).
enum RpcDiscover: MethodDefinition {
    static let method = "rpc.discover"
    typealias Params = NoParams
    typealias Result = PlainResult

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        .result(PlainResult(json: try OpenRPCDocument.json()))
    }
}

/// The compiled-in copy of protocol/openrpc.json.
public enum OpenRPCDocument {
    public static var bytes: [UInt8] { PackageResources.openrpc_json }

    static func json() throws(ResponseError) -> JSON {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .internalError("the built-in OpenRPC document is not valid JSON: \(error)")
        }
    }
}
