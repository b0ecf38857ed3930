import XCTest
import LarderJSON
@testable import LarderCore

/// `callback` steps: the read stops with a question, and is run again with the answers.
final class MigrationCallbackTests: ObjectStoreTestCase {
    private var original: [UInt8]!

    override func prepare() throws {
        try store.register("Tally", "1", #"{"fields":{"n":"integer"}}"#)
        original = try cache.putObject("t1", "Tally", #"{"n":1}"#).json.encoded
        try store.register("Tally", "2", #"{"fields":{"n":"string"},"migrations":[{"from":"1","steps":[{"op":"callback"}]}]}"#)
    }

    func testWithoutAnAnswerTheReadAsksAStableQuestion() throws {
        let question = try XCTUnwrap(cache.readObject("t1").callbackRequest)
        XCTAssertEqual(question.id, "|Tally|1|2")
        XCTAssertEqual(question.type, "Tally")
        XCTAssertEqual(question.fromVersion, "1")
        XCTAssertEqual(question.toVersion, "2")
        XCTAssertEqual(question.value, json(#"{"n":1}"#))
        // Asking changes nothing, and asking again gives the same question.
        XCTAssertEqual(try cache.rawBytes("t1"), original)
        let again = try XCTUnwrap(cache.readObject("t1").callbackRequest)
        XCTAssertEqual(again.id, question.id)
        XCTAssertEqual(again.value, question.value)
        // An answer to some other question does not count.
        XCTAssertEqual(try cache.readObject("t1", answers: ["|Other|1|2": .drop]).callbackRequest?.id, question.id)
    }

    func testAValueAnswerCompletesTheMigration() throws {
        let id = try XCTUnwrap(cache.readObject("t1").callbackRequest).id
        let read = try cache.readObject("t1", answers: [id: .value(json(#"{"n":"one"}"#))])
        XCTAssertEqual(read.migratedFrom?.text, "1")
        let migrated = try XCTUnwrap(read.migratedObject)
        XCTAssertEqual(migrated.version.text, "2")
        XCTAssertEqual(migrated.plainValue, json(#"{"n":"one"}"#))
        XCTAssertEqual(try cache.readObject("t1").currentObject?.plainValue, json(#"{"n":"one"}"#), "written back")
    }

    func testADropAnswerDeletesTheEntry() throws {
        let id = try XCTUnwrap(cache.readObject("t1").callbackRequest).id
        guard case .dropped(let type, let from) = try cache.readObject("t1", answers: [id: .drop]) else {
            return XCTFail("expected the object to be dropped")
        }
        XCTAssertEqual(type, "Tally")
        XCTAssertEqual(from.text, "1")
        XCTAssertNil(try cache.lookup("t1"))
        XCTAssertTrue(try cache.readObject("t1").isNotFound)
        XCTAssertEqual(try cache.objectCount(), 0)
    }

    func testAFailureAnswerFailsTheMigrationAndKeepsTheData() throws {
        let id = try XCTUnwrap(cache.readObject("t1").callbackRequest).id
        let failed = assertMigrationFailed { _ = try self.cache.readObject("t1", answers: [id: .failure("cannot say")]) }
        XCTAssertEqual(failed?.key, "t1")
        XCTAssertEqual(failed?.type, "Tally")
        XCTAssertEqual(failed?.from, "1")
        XCTAssertEqual(failed?.to, "2")
        XCTAssertEqual(failed?.reason, #"{"op":"callback"} (1 → 2): the client's migration failed: cannot say"#)
        XCTAssertEqual(try cache.rawBytes("t1"), original)
    }

    func testAnAnswerThatIsNotAnObjectOrDoesNotValidateFails() throws {
        let id = try XCTUnwrap(cache.readObject("t1").callbackRequest).id
        let notObject = assertMigrationFailed { _ = try self.cache.readObject("t1", answers: [id: .value("one")]) }
        XCTAssertEqual(notObject?.reason, #"{"op":"callback"} (1 → 2): the client answered a string, not an object"#)
        let invalid = assertMigrationFailed { _ = try self.cache.readObject("t1", answers: [id: .value(json(#"{"n":1}"#))]) }
        XCTAssertEqual(invalid?.reason, "the migrated value does not validate: value.n: expected string, got integer")
        XCTAssertEqual(try cache.rawBytes("t1"), original)
    }

    func testTheQuestionCarriesTheValueAsEarlierStepsLeftIt() throws {
        try store.register("Tally", "3", #"""
            {"fields":{"count":"string","note":"string"},"migrations":[{"from":"2","steps":[
              {"op":"rename","from":"n","to":"count"},{"op":"set","field":"note","value":"added"},{"op":"callback"},
              {"op":"default","field":"note","value":"unused"}]}]}
            """#)
        // Two callback hops in a chain: 1 → 2, then 2 → 3.
        let first = try XCTUnwrap(cache.readObject("t1").callbackRequest)
        XCTAssertEqual(first.id, "|Tally|1|2")
        let answers: [String: CallbackAnswer] = [first.id: .value(json(#"{"n":"one"}"#))]
        let second = try XCTUnwrap(cache.readObject("t1", answers: answers).callbackRequest)
        XCTAssertEqual(second.id, "|Tally|2|3")
        XCTAssertEqual(second.fromVersion, "2")
        XCTAssertEqual(second.toVersion, "3")
        XCTAssertEqual(second.value, json(#"{"count":"one","note":"added"}"#))
        XCTAssertEqual(try cache.rawBytes("t1"), original, "nothing is written while questions are open")

        var all = answers
        all[second.id] = .value(json(#"{"count":"ONE","note":"from the client"}"#))
        let done = try XCTUnwrap(cache.readObject("t1", answers: all).migratedObject)
        XCTAssertEqual(done.version.text, "3")
        XCTAssertEqual(done.plainValue, json(#"{"count":"ONE","note":"from the client"}"#))
    }

    func testADropWithoutWriteBackKeepsTheEntry() throws {
        let id = try XCTUnwrap(cache.readObject("t1").callbackRequest).id
        guard case .dropped = try cache.readObject("t1", answers: [id: .drop], writeBack: false) else {
            return XCTFail("expected the object to be reported dropped")
        }
        XCTAssertEqual(try cache.rawBytes("t1"), original)
    }
}
