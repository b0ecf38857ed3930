import XCTest
import LarderJSON
@testable import LarderCore

/// `CanonicalJSON`: one text per value, and a stable FNV-1a 64 hash over it.
final class ObjectCanonicalJSONTests: StoreTestCase {
    /// 64-bit FNV-1a, written out here independently of the implementation.
    private func fnv1a64(_ text: String) -> String {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 1_099_511_628_211
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    func testTheIndependentFNVMatchesPublishedVectors() {
        XCTAssertEqual(fnv1a64(""), "cbf29ce484222325")
        XCTAssertEqual(fnv1a64("a"), "af63dc4c8601ec8c")
        XCTAssertEqual(fnv1a64("foobar"), "85944171f73967e8")
    }

    func testCanonicalTextSortsMembersAndNormalisesNumbers() {
        XCTAssertEqual(CanonicalJSON.canonical(json(#"{"b":[true,null],"a":1.0}"#)).description, #"{"a":1,"b":[true,null]}"#)
        XCTAssertEqual(CanonicalJSON.canonical(json(#"{ "z" : { "y":1e2, "x":2.50 }, "A":-0.0, "é":"é", "B":[{"d":1,"c":2}] }"#)).description,
                       #"{"A":0,"B":[{"c":2,"d":1}],"z":{"x":2.5,"y":100},"é":"é"}"#)
        // With duplicate names, the last one counts.
        XCTAssertEqual(CanonicalJSON.canonical(json(#"{"a":1,"a":2}"#)).description, #"{"a":2}"#)
        XCTAssertEqual(CanonicalJSON.canonical(json("0.1")).description, "0.1")
        XCTAssertEqual(CanonicalJSON.canonical(json("1E+2")).description, "100")
    }

    func testAFixedInputHasAFixedHash() {
        let canonical = #"{"type":"T","value":{"a":1,"b":[true,null]}}"#
        let expected = fnv1a64(canonical)
        XCTAssertEqual(expected, "a905714554d4ef77")
        XCTAssertEqual(CanonicalJSON.hash(type: "T", value: json(#"{"a":1,"b":[true,null]}"#)), expected)
        XCTAssertEqual(CanonicalJSON.canonical(["type": "T", "value": json(#"{"b":[true,null],"a":1}"#)]).description, canonical)
    }

    func testMemberOrderAndNumberFormsDoNotChangeTheHash() {
        let forms = [
            #"{"a":1,"b":[true,null]}"#,
            #"{"b":[true,null],"a":1}"#,
            #"{"a":1.0,"b":[true,null]}"#,
            #"{"b":[true, null], "a":1e0}"#,
            #"{"a":10E-1,"b":[true,null]}"#,
        ]
        let hashes = Set(forms.map { CanonicalJSON.hash(type: "T", value: json($0)) })
        XCTAssertEqual(hashes.count, 1)
        XCTAssertEqual(hashes.first?.count, 16)
    }

    func testDifferentValuesOrTypesHashDifferently() {
        let base = CanonicalJSON.hash(type: "T", value: json(#"{"a":1}"#))
        XCTAssertNotEqual(CanonicalJSON.hash(type: "U", value: json(#"{"a":1}"#)), base)
        XCTAssertNotEqual(CanonicalJSON.hash(type: "T", value: json(#"{"a":2}"#)), base)
        XCTAssertNotEqual(CanonicalJSON.hash(type: "T", value: json(#"{"a":"1"}"#)), base)
        XCTAssertNotEqual(CanonicalJSON.hash(type: "T", value: json(#"{"a":1.5}"#)), base)
        // Array order does matter.
        XCTAssertNotEqual(CanonicalJSON.hash(type: "T", value: json("[1,2]")), CanonicalJSON.hash(type: "T", value: json("[2,1]")))
    }

    func testFragmentsHashLikeTheValueTheyEncode() {
        let fragment = JSON.fragment(JSONFragment(validJSON: Array(#"{"b":[true,null],"a":1}"#.utf8)))
        XCTAssertEqual(CanonicalJSON.hash(type: "T", value: fragment), CanonicalJSON.hash(type: "T", value: json(#"{"a":1,"b":[true,null]}"#)))
    }

    func testAStoredObjectHashesAsTheProtocolPublishes() throws {
        // The value objects-schemas.transcript hashes to 8d8205c9b95eb0a8.
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("Animal", "1", #"{"fields":{"name":"string","born":"date?","tags":{"array":"string"}}}"#)
        try store.register("Dog", "2.1", #"{"parent":"Animal","fields":{"breed":"string","owner":{"optional":{"ref":"Person"}},"scores":{"map":"number"},"good":{"type":"bool","default":true}}}"#)
        try store.register("Person", "1", #"{"fields":{"name":"string","photo":"data?"}}"#)
        _ = try store.extend(type: "Dog", category: "Tricks", fields: FieldDefinition.list(from: json(#"{"trick":"string"}"#), at: "fields"))
        let a = try cache.putObject("rex", "Dog", #"{"name":"Rex","tags":["loud"],"breed":"collie","owner":{"name":"Ada","photo":"AAEC"},"scores":{"agility":9.5},"trick":"roll over"}"#)
        let b = try cache.putObject("rex2", "Dog", #"{"trick":"roll over","scores":{"agility":9.50},"owner":{"photo":"AAEC","name":"Ada"},"breed":"collie","tags":["loud"],"name":"Rex"}"#)
        XCTAssertEqual(CanonicalJSON.hash(type: a.type, value: a.plainValue), "8d8205c9b95eb0a8")
        XCTAssertEqual(CanonicalJSON.hash(type: b.type, value: b.plainValue), "8d8205c9b95eb0a8")
        XCTAssertEqual(fnv1a64(CanonicalJSON.canonical(["type": "Dog", "value": a.plainValue]).description), "8d8205c9b95eb0a8")
    }

    /// HMCache has no null apart from unset: a field sent as null, one left
    /// out, and one a migration removed compare and hash alike, at every level
    /// of nested objects; a null inside a map or a `json` value is a value.
    func testANullFieldEqualsAnUnsetOne() throws {
        let store = try makeStore(inMemory: true)
        let cache = try openCache(store)
        try store.register("Person", "1", #"{"fields":{"name":"string","nick":"string?"}}"#)
        try store.register("Team", "1", #"{"fields":{"lead":{"optional":{"ref":"Person"}},"members":{"array":{"ref":"Person"}},"notes":{"map":"string?"},"extra":"json?"}}"#)
        func hash(_ value: String) throws -> String {
            CanonicalJSON.hash(of: .single(try cache.putObject("t", "Team", value)))
        }
        XCTAssertEqual(try hash(#"{"lead":null,"members":[{"name":"A","nick":null}],"notes":{},"extra":null}"#),
                       try hash(#"{"members":[{"name":"A"}],"notes":{}}"#))
        XCTAssertEqual(try hash(#"{"lead":{"name":"B","nick":null},"members":[],"notes":{}}"#),
                       try hash(#"{"lead":{"name":"B"},"members":[],"notes":{}}"#))
        XCTAssertEqual(try cache.putObject("t", "Team", #"{"lead":null,"members":[],"notes":{}}"#).comparableValue,
                       json(#"{"members":[],"notes":{}}"#))
        XCTAssertNotEqual(try hash(#"{"members":[],"notes":{"a":null}}"#), try hash(#"{"members":[],"notes":{}}"#))
        XCTAssertNotEqual(try hash(#"{"members":[],"notes":{},"extra":{"a":null}}"#), try hash(#"{"members":[],"notes":{},"extra":{}}"#))
        // The plain value still shows the null that was sent.
        XCTAssertEqual(try cache.putObject("t", "Team", #"{"lead":null,"members":[],"notes":{}}"#).plainValue,
                       json(#"{"lead":null,"members":[],"notes":{}}"#))
    }
}
