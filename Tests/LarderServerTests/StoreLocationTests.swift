import LarderJSON
import XCTest
@testable import LarderServer

/// A store is a directory or a PostgreSQL URL; a URL of any other scheme,
/// misspelt ones included, is refused rather than taken for a directory.
final class StoreLocationTests: XCTestCase {
    func testAURLOfAnUnknownSchemeIsRefusedNamingTheOneMeant() {
        for (text, meant) in [("mysql://app@db/x", nil), ("postgresq://app@db/x", "postgresql"), ("postgress://", "postgres"), ("file:///tmp/x", nil)] {
            XCTAssertThrowsError(try StoreLocation(text, from: "--store"), text) { error in
                let message = (error as? StoreLocation.Refusal)?.message ?? ""
                XCTAssertTrue(message.hasPrefix("--store \(text) is a "), message)
                XCTAssertTrue(message.contains("postgresql:// or postgres://"), message)
                XCTAssertTrue(message.contains("given as ./\(text)"), message)
                if let meant {
                    XCTAssertTrue(message.contains("(did you mean \(meant)://?)"), message)
                } else {
                    XCTAssertFalse(message.contains("did you mean"), message)
                }
            }
        }
    }

    func testTheKnownSchemesInAnyCaseAndDirectoriesWithColonsAreStores() throws {
        XCTAssertEqual(try StoreLocation("PostgreSQL://app@db/x", from: "--store"),
                       .postgreSQL(url: "PostgreSQL://app@db/x", schema: "larder", coherence: .strict))
        XCTAssertEqual(try StoreLocation("./mysql://app@db/x", from: "--store"), .directory("./mysql://app@db/x"))
        XCTAssertEqual(try StoreLocation("name:with:colon", from: "--store"), .directory("name:with:colon"))
    }

    func testTheRefusalHidesAPassword() {
        let message = StoreLocation.unknownScheme("mysql://app:s3cret@db/x", from: "$LARDER_STORE") ?? ""
        XCTAssertTrue(message.hasPrefix("$LARDER_STORE mysql://app:***@db/x is a mysql:// URL"), message)
        XCTAssertFalse(message.contains("s3cret"), message)
    }
}
