import Foundation
import LarderJSON
import XCTest
@testable import LarderServer

/// The server's method table, protocol/openrpc.json, protocol/SPEC.md and the
/// transcripts must describe the same methods; every example in openrpc.json
/// must answer its documented result (`+Examples`), and every result, of an
/// example or of a transcript, must match its method's result schema
/// (`+ResultSchemas`).
final class ProtocolContractTests: XCTestCase {
    static let protocolDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol")

    func openRPC() throws -> JSON {
        let data = try Data(contentsOf: Self.protocolDirectory.appendingPathComponent("openrpc.json"))
        return try JSONParser.parse(Array(data))
    }

    private var serverMethods: [String: [String]] {
        var table: [String: [String]] = [:]
        for m in MethodTable.all { table[m.method] = m.requiredParams }
        return table
    }

    func testOpenRPCListsExactlyTheServersMethods() throws {
        let methods = try XCTUnwrap(try openRPC()["methods"]?.arrayValue, "openrpc.json has no methods array")
        let documented = Set(methods.compactMap { $0["name"]?.stringValue })
        let served = Set(serverMethods.keys)
        XCTAssertEqual(documented.subtracting(served).sorted(), [], "documented in openrpc.json but not served")
        XCTAssertEqual(served.subtracting(documented).sorted(), [], "served but missing from openrpc.json")
    }

    func testOpenRPCRequiredParamsMatchTheServers() throws {
        let methods = try XCTUnwrap(try openRPC()["methods"]?.arrayValue)
        for method in methods {
            guard let name = method["name"]?.stringValue, let required = serverMethods[name] else { continue }
            let params = method["params"]?.arrayValue ?? []
            let documentedRequired = params.filter { $0["required"]?.boolValue == true }.compactMap { $0["name"]?.stringValue }
            XCTAssertEqual(Set(documentedRequired), Set(required), "required params of \(name)")
            XCTAssertEqual(method["paramStructure"]?.stringValue, "by-name", "\(name) takes params by name")
        }
    }

    func testTheCompiledInDocumentIsTheFile() throws {
        XCTAssertEqual(try JSONParser.parse(OpenRPCDocument.bytes), try openRPC(), "rebuild: the embedded openrpc.json is stale")
    }

    func testEveryMethodIsInTheSpecAndATranscript() throws {
        let spec = try String(contentsOf: Self.protocolDirectory.appendingPathComponent("SPEC.md"), encoding: .utf8)
        let transcriptDirectory = Self.protocolDirectory.appendingPathComponent("transcripts")
        let transcripts = try FileManager.default.contentsOfDirectory(atPath: transcriptDirectory.path)
            .filter { $0.hasSuffix(".transcript") }
            .map { try String(contentsOf: transcriptDirectory.appendingPathComponent($0), encoding: .utf8) }
            .joined(separator: "\n")
        for name in serverMethods.keys.sorted() {
            XCTAssertTrue(spec.contains("`\(name)`"), "SPEC.md does not document \(name)")
            XCTAssertTrue(transcripts.contains("\"method\":\"\(name)\""), "no transcript calls \(name)")
        }
    }
}
