import LarderSystem
import XCTest

final class CommandLineFlagsTests: XCTestCase {
    struct Options {
        var fast = false
        var name: String?
        var secret: String?
        var help = false
    }

    static let flags = CommandLineFlags<Options>([
        CommandLineFlag("--fast", help: "Go fast.") { $0.fast = true },
        CommandLineFlag("--name", "NAME", help: "What it is called, in a help long enough to need a second line at sixty columns.") {
            o, text throws(UsageError) in
            guard !text.isEmpty else { throw UsageError(message: "--name needs a name") }
            o.name = text
        },
        CommandLineFlag("--secret", "PATH", replayed: false, help: "Not passed on.") { o, text throws(UsageError) in o.secret = text },
        CommandLineFlag("--help", aliases: ["-h"], help: "This text.") { $0.help = true },
    ])

    private func parse(_ arguments: [String], until done: (Options) -> Bool = { _ in false }) throws(UsageError) -> (Options, [String]) {
        var o = Options()
        let replayed = try Self.flags.parse(arguments, into: &o, until: done) { name, candidates in
            candidates.first { $0.hasPrefix(String(name.prefix(4))) }
        }
        return (o, replayed)
    }

    func testFlagsAreAppliedAndThoseReplayedAreReturnedInOrder() throws {
        let (o, replayed) = try parse(["--secret", "/k", "--name", "n", "--fast"])
        XCTAssertTrue(o.fast)
        XCTAssertEqual(o.name, "n")
        XCTAssertEqual(o.secret, "/k")
        XCTAssertEqual(replayed, ["--name", "n", "--fast"])
    }

    func testAnAliasIsTheFlag() throws {
        XCTAssertTrue(try parse(["-h"]).0.help)
    }

    func testParsingStopsWhereAsked() throws {
        let (o, _) = try parse(["--help", "--bogus"], until: \.help)
        XCTAssertTrue(o.help)
    }

    func testRefusalsSayWhatWasWrong() {
        for (arguments, message) in [
            (["--fats"], "unknown argument --fats (did you mean --fast?)"),
            (["bogus"], "unknown argument bogus"),
            (["--name"], "--name needs a value"),
            (["--name", ""], "--name needs a name"),
        ] {
            XCTAssertThrowsError(try parse(arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? UsageError)?.message, message)
            }
        }
    }

    func testTheUsageListsEveryFlagOnceWithItsHelpWrapped() {
        XCTAssertEqual(Self.flags.usage(width: 60), """
              --fast         Go fast.
              --name NAME    What it is called, in a help long enough to
                             need a second line at sixty columns.
              --secret PATH  Not passed on.
              --help         This text.
            """)
    }
}
