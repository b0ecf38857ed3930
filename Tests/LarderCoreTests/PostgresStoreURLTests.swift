import XCTest
@testable import LarderPostgreSQL

/// How a store's URL is told apart and shown: never with its password.
final class PostgresStoreURLTests: XCTestCase {
    func testURLsAreTheTwoSchemesAndNothingElse() {
        XCTAssertTrue(PostgresStore.isURL("postgresql://"))
        XCTAssertTrue(PostgresStore.isURL("postgres://app@db/app"))
        XCTAssertFalse(PostgresStore.isURL("/var/lib/larder"))
        XCTAssertFalse(PostgresStore.isURL("postgresql:/x"))
        XCTAssertFalse(PostgresStore.isURL("./postgresql://x"))
    }

    func testTheSchemesAreCaseInsensitiveAndLibPQGetsThemInLowercase() {
        XCTAssertTrue(PostgresStore.isURL("PostgreSQL://app@db/app"))
        XCTAssertTrue(PostgresStore.isURL("POSTGRES://"))
        XCTAssertEqual(PostgresStore.lowercasingScheme("PostgreSQL://App@DB/App"), "postgresql://App@DB/App")
        XCTAssertEqual(PostgresStore.lowercasingScheme("host=db dbname=app"), "host=db dbname=app")
    }

    func testASchemeIsALetterThenLettersDigitsPlusMinusOrDotBeforeColonSlashSlash() {
        XCTAssertEqual(PostgresStore.scheme(of: "mysql://app@db/x"), "mysql")
        XCTAssertEqual(PostgresStore.scheme(of: "svn+ssh://h/r"), "svn+ssh")
        XCTAssertEqual(PostgresStore.scheme(of: "postgresq://"), "postgresq")
        XCTAssertNil(PostgresStore.scheme(of: "./mysql://app@db/x"))
        XCTAssertNil(PostgresStore.scheme(of: "/var/lib/x://y"))
        XCTAssertNil(PostgresStore.scheme(of: "name:with:colon"))
        XCTAssertNil(PostgresStore.scheme(of: "://x"))
        XCTAssertNil(PostgresStore.scheme(of: "1abc://x"))
        XCTAssertNil(PostgresStore.scheme(of: "host=db password=a://b"))
    }

    func testPostgreSQLsOwnSchemasAreRefusedAndOthersKept() {
        for name in ["public", "Public", "information_schema", "INFORMATION_SCHEMA", "pg_catalog", "pg_toast", "Pg_mine"] {
            XCTAssertEqual(PostgresStore.schemaRefusal(name)?.hasPrefix("\(name) is PostgreSQL's own"), true, name)
        }
        for name in ["larder", "publication", "app_pg_cache", "pg", "my public"] {
            XCTAssertNil(PostgresStore.schemaRefusal(name), name)
        }
        XCTAssertNotNil(PostgresStore.schemaRefusal(""))
        XCTAssertNotNil(PostgresStore.schemaRefusal(String(repeating: "s", count: 64)))
    }

    func testPasswordsAreHiddenWhereverTheURLGivesThem() {
        XCTAssertEqual(PostgresStore.redacted("postgresql://app:s3cret@db:5432/app"), "postgresql://app:***@db:5432/app")
        XCTAssertEqual(PostgresStore.redacted("postgresql://app@db/app?sslmode=require&password=s3cret&connect_timeout=5"),
                       "postgresql://app@db/app?sslmode=require&password=***&connect_timeout=5")
        XCTAssertEqual(PostgresStore.redacted("postgres://a:b:c@h/d?password=x"), "postgres://a:***@h/d?password=***")
        XCTAssertEqual(PostgresStore.redacted("postgresql://app@db/app"), "postgresql://app@db/app")
        XCTAssertEqual(PostgresStore.redacted("postgresql://?service=main"), "postgresql://?service=main")
    }
}
