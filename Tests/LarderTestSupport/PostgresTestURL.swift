import Foundation
import XCTest

/// The PostgreSQL server tests run against: `LARDER_TEST_PG_URL`, which
/// `.ci/with-postgres` sets for a throwaway cluster, or you set for a
/// database of your own. Without it the tests cannot run: with CI=true that
/// fails them, saying why; elsewhere they are skipped, saying why.
public enum PostgresTestURL {
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public static var value: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["LARDER_TEST_PG_URL"], !url.isEmpty else {
                try refuse("LARDER_TEST_PG_URL is not set: run the tests under .ci/with-postgres, or point it at a database")
            }
            return url
        }
    }

    public static func refuse(_ why: String) throws -> Never {
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw Refused(description: "\(why) (CI=true: these tests must run)") }
        throw XCTSkip(why)
    }
}
