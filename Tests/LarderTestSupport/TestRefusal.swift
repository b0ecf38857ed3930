import Foundation
import XCTest

/// Why a test cannot run here (no PostgreSQL server named, no root to
/// mount a file system, an executable not built): with CI=true that fails
/// the test, saying why; elsewhere the test is skipped, saying why.
public struct TestRefusal: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }

    public static func refuse(_ why: String) throws -> Never {
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw TestRefusal(description: "\(why) (CI=true: this test must run)") }
        throw XCTSkip(why)
    }
}
