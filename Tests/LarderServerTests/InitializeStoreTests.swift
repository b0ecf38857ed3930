import LarderJSON
import XCTest
@testable import LarderServer

/// `initialize {store}` names a directory or a database on PostgreSQL; what
/// names neither is refused with -32602, naming the member and what was
/// meant, and the session goes on with its store.
final class InitializeStoreTests: XCTestCase {
    private func assertRefused(_ cases: [(store: String, message: String)], file: StaticString = #filePath, line: UInt = #line) throws {
        for (store, expected) in cases {
            let output = try serveSession(request(1, "initialize", #"{"store":\#(store)}"#) + "\n" + request(2, "cache.list", "{}") + "\n")
            let answers = try output.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
            XCTAssertEqual(answers.first?["error"]?["code"], -32602, output, file: file, line: line)
            let message = answers.first?["error"]?["message"]?.stringValue ?? ""
            XCTAssertTrue(message.hasPrefix(expected), "\(message)\nexpected: \(expected)", file: file, line: line)
            XCTAssertNotNil(answers.last?["result"], "the session goes on: \(output)", file: file, line: line)
        }
    }

    func testAStoreOfAnUnknownSchemeIsRefusedNamingTheMemberAndTheOneMeant() throws {
        try assertRefused([
            (#"{"path":"postgresq://app@db/x"}"#, "Invalid params: params.store.path postgresq://app@db/x is a postgresq:// URL, a scheme Larder does not know (did you mean postgresql://?)"),
            (#"{"path":"mysql://app@db/x"}"#, "Invalid params: params.store.path mysql://app@db/x is a mysql:// URL, a scheme Larder does not know: "),
            (#"{"path":"postgresql://app@db/x"}"#, "Invalid params: params.store.path is a PostgreSQL URL, not a directory: give it as params.store.url"),
            (#"{"url":"postgresq://app:pw@db/x"}"#, "Invalid params: params.store.url must be a postgresql:// or postgres:// URL, not postgresq://app:***@db/x (did you mean postgresql://?)"),
            (#"{"url":"/tmp/x"}"#, "Invalid params: params.store.url must be a postgresql:// or postgres:// URL, not /tmp/x"),
        ])
    }

    func testPostgreSQLsOwnSchemasAreRefusedInAnyCase() throws {
        try assertRefused([
            (#"{"url":"postgresql://db/x","schema":"public"}"#, "Invalid params: params.store.schema: public is PostgreSQL's own (public, information_schema and pg_… are the database's, in any case): name a schema for Larder's tables alone, such as larder"),
            (#"{"url":"postgresql://db/x","schema":"PUBLIC"}"#, "Invalid params: params.store.schema: PUBLIC is PostgreSQL's own"),
            (#"{"url":"postgresql://db/x","schema":"Information_Schema"}"#, "Invalid params: params.store.schema: Information_Schema is PostgreSQL's own"),
            (#"{"url":"postgresql://db/x","schema":"pg_catalog"}"#, "Invalid params: params.store.schema: pg_catalog is PostgreSQL's own"),
            (#"{"url":"postgresql://db/x","schema":"PG_temp"}"#, "Invalid params: params.store.schema: PG_temp is PostgreSQL's own"),
        ])
    }
}
