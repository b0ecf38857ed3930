import LarderCore
import LarderJSON
import LarderTestSupport
import XCTest
@testable import LarderServer

/// Plain `cache.get` and `cache.set` requests are answered straight from their
/// bytes; everything else takes the ordinary path. Whichever path a request
/// takes, the output must be the same, byte for byte: each session here is
/// served twice, with direct answers on and off, and the outputs compared.
final class DirectAnswerTests: XCTestCase {
    func testSetsAndGetsOfEveryShapeAnswerAlike() throws {
        let values = [
            #""text""#, "12", "-0.5e3", "true", "null", #"{"a":[1,{"b":"c"}],"d":""}"#, "[]", "{}",
            #""quote \" backslash \\ newline \n tab \t control \u001f""#, #""slash \/ and \u0041""#,
            #"{ "spaced" : [ 1, 2 ] }"#, "\"é ラ 🙂\"", #""\ud83d\ude42""#, "1E400", "[1,]",
        ]
        var lines: [String] = []
        var id = 0
        for (k, v) in values.enumerated() {
            id += 1; lines.append(request(id, "cache.set", #"{"key":"k\#(k)","value":\#(v)}"#))
            id += 1; lines.append(request(id, "cache.get", #"{"key":"k\#(k)"}"#))
        }
        for k in values.indices {
            id += 1; lines.append(request(id, "cache.get", #"{"key":"k\#(k)"}"#))
        }
        try assertBothPathsAgree(lines)
    }

    /// Values of 1 MiB and more are read back in place, piece by piece into
    /// the answer (`CacheGet.writeInPlace`): a string, data whose base64
    /// spans several pieces and ends in padding, and an object, each read
    /// back whole and alike on both paths, with what follows the value.
    func testLargeValuesOfEveryKindAnswerAlikeAndWhole() throws {
        let text = String(repeating: "0123456789abcdef", count: 80_000) + "tail"
        let bytes = (0..<(1 << 20) + 1_000_001).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        let data = Base64.encode(bytes)
        let lines = [
            request(1, "cache.open", #"{"cache":"big","memory":{"maxBytes":1048576}}"#),
            request(2, "schema.register", #"{"type":"Note","version":"1","fields":{"text":"string"}}"#),
            request(3, "cache.set", #"{"cache":"big","key":"s","value":"\#(text)","ttl":60}"#),
            request(4, "cache.set", #"{"cache":"big","key":"d","data":"\#(data)"}"#),
            request(5, "object.put", #"{"cache":"big","key":"o","type":"Note","value":{"text":"\#(text)"}}"#),
            request(6, "cache.get", #"{"cache":"big","key":"s"}"#),
            request(7, "cache.get", #"{"cache":"big","key":"d"}"#),
            request(8, "cache.get", #"{"cache":"big","key":"o"}"#),
        ]
        let answers = try assertBothPathsAgree(lines)
        XCTAssertEqual(answers.count, lines.count)
        guard answers.count == lines.count else { return }
        let string = try JSONParser.parse(Array(answers[5].utf8))["result"]
        XCTAssertEqual(string?["value"], .string(text))
        XCTAssertEqual(string?["tier"], "disk")
        XCTAssertEqual(string?["expiresAt"], "2026-01-01T00:01:00.000Z", "a ttl of 60 s")
        let read = try JSONParser.parse(Array(answers[6].utf8))["result"]
        XCTAssertEqual(read?["data"]?.stringValue.flatMap(Base64.decode), bytes)
        XCTAssertEqual(read?["expired"], false)
        let object = try JSONParser.parse(Array(answers[7].utf8))["result"]
        XCTAssertEqual(object?["value"]?["text"], .string(text))
        XCTAssertEqual(object?["type"], "Note")
    }

    func testParamsThatArePlainOrNotAnswerAlike() throws {
        let params = [
            #"{"key":"a","value":1}"#, #"{"cache":"c2","group":"g","key":"a","value":2}"#,
            #"{"key":"a","value":3,"ttl":60}"#, #"{"key":"a","value":4,"ttl":1.5}"#, #"{"key":"a","value":5,"ttl":-1}"#,
            #"{"key":"a","value":6,"ttl":"60"}"#, #"{"key":"a","value":7,"ttl":1e400}"#, #"{"key":"a","value":8,"ttl":0}"#,
            #"{"key":"a","data":"AAE="}"#, #"{"key":"a","value":1,"data":"AAE="}"#, #"{"key":"a"}"#,
            #"{"key":"","value":1}"#, #"{"value":1}"#, #"{"key":7,"value":1}"#, #"{"key":"a\"b","value":1}"#,
            #"{"key":"\u0061","value":9}"#, #"{"key":"a","key":"b","value":1}"#, #"{"key":"a","value":1,"extra":true}"#,
            #"{"cache":"","key":"a","value":1}"#, #"{"cache":5,"key":"a","value":1}"#, #"{"group":null,"key":"a","value":1}"#,
            "{\"key\":\"é\",\"value\":10}", #" { "key" : "a" , "value" : 11 } "#, "[]", "{}", "null",
            #"{"key":"d","data":""}"#, #"{"key":"d","data":"Zg=="}"#, #"{"key":"d","data":"Zg="}"#,
            #"{"key":"d","data":null}"#, #"{"key":"d","data":1}"#, #"{"key":"d","data":"AAE=","ttl":5}"#,
            #"{"cache":"c2","group":"g","key":"d","data":"AAEC"}"#, #"{"key":"d","data":"AA=="}"#,
            #"{"key":"d","data":"Zm 9v"}"#, "{\"key\":\"d\",\"data\":\"éé\"}", #"{"key":"d","data":"AAE=","ttl":"5"}"#,
            #"{"key":"d","data":"AAE=","value":null}"#, #"{"key":"d","data":null,"value":12}"#,
        ]
        var lines: [String] = []
        var id = 0
        for p in params {
            id += 1; lines.append(request(id, "cache.set", p))
            id += 1; lines.append(request(id, "cache.get", p))
        }
        lines.append(request(900, "cache.get", #"{"cache":"never-made","key":"a"}"#))
        lines.append(request(901, "cache.get", #"{"cache":"c2","group":"g","key":"a"}"#))
        lines.append(request(902, "cache.get", #"{"cache":"c2","key":"a"}"#))
        try assertBothPathsAgree(lines)
    }

    /// Sets with `ifRevision` or `ifAbsent` are answered directly when the
    /// condition is plain (digits; `true` or `false`), held or refused alike
    /// (-31080 with the revision found), over entries in the memory tier, on
    /// disk only, expired, and in a memory-only cache; the rest declined.
    func testConditionalSetsAnswerAlike() throws {
        try assertConditionalSetsAnswerAlike(onPostgreSQL: false)
    }

    /// On PostgreSQL a direct conditional set is checked by the statement
    /// that writes it, queued with the others, and answered at the commit;
    /// the ordinary path waits for that statement's answer. Both must say
    /// the same, failures and their revisions included.
    func testConditionalSetsAnswerAlikeOnPostgreSQL() throws {
        try assertConditionalSetsAnswerAlike(onPostgreSQL: true)
    }

    private func assertConditionalSetsAnswerAlike(onPostgreSQL: Bool) throws {
        var lines = Self.cachesOfEveryKind
        var id = lines.count
        for cache in Self.cacheNamesOfEveryKind {
            let params = [
                #"{"key":"a","value":1,"ifAbsent":true}"#, #"{"key":"a","value":2,"ifAbsent":true}"#,
                #"{"key":"b","value":1}"#, #"{"key":"a","value":3,"ifRevision":1}"#, #"{"key":"a","value":4,"ifRevision":3}"#,
                #"{"key":"a","value":5,"ifRevision":99}"#, #"{"key":"a","value":6,"ifAbsent":false}"#,
                #"{"key":"a","data":"AAE=","ifRevision":6,"ttl":30}"#, #"{"key":"c","value":7,"ifRevision":1}"#,
                #"{"key":"a","value":8,"ifRevision":7,"ifAbsent":false}"#, #"{"key":"a","value":9,"ifRevision":7,"ifAbsent":true}"#,
                #"{"key":"a","value":10,"ifRevision":-1}"#, #"{"key":"a","value":11,"ifRevision":7.0}"#,
                #"{"key":"a","value":12,"ifRevision":7e0}"#, #"{"key":"a","value":13,"ifRevision":"7"}"#,
                #"{"key":"a","value":14,"ifRevision":99999999999999999999}"#, #"{"key":"a","value":15,"ifAbsent":1}"#,
                #"{"key":"a","value":16,"ifAbsent":null}"#, #"{"key":"a","value":17,"ifRevision":null}"#,
                #"{"key":"a","value":18,"ifRevision":0}"#, #"{"key":"b","value":19,"ifRevision":3}"#,
            ]
            for p in params {
                id += 1; lines.append(request(id, "cache.set", Self.scoped(p, to: cache)))
            }
            id += 1; lines.append(request(id, "cache.getMany", #"{"cache":"\#(cache)","keys":["a","b","c"]}"#))
        }
        // Expired: a condition on no live entry.
        id += 1; lines.append(request(id, "debug.advanceClock", #"{"seconds":2}"#))
        id += 1; lines.append(request(id, "cache.set", #"{"cache":"short","key":"b","value":20,"ifRevision":1}"#))
        id += 1; lines.append(request(id, "cache.set", #"{"cache":"short","key":"b","value":21,"ifAbsent":true}"#))
        id += 1; lines.append(request(id, "cache.get", #"{"cache":"short","key":"b"}"#))
        let answers = try assertBothPathsAgree(lines, enableTestMethods: true, onPostgreSQL: onPostgreSQL)
        let refusals = answers.filter { $0.contains("-31080") }.count
        XCTAssertGreaterThanOrEqual(refusals, 4 * 5, "conditions refused in every cache")
        XCTAssertTrue(answers.last?.contains(#""value":21"#) == true, "ifAbsent over an expired entry: \(answers.last ?? "")")
    }

    /// Caches whose entries a write finds in the memory tier, on disk only
    /// (a tier of one entry), expired (after a second), and in memory only.
    private static let cachesOfEveryKind = [
        request(1, "cache.open", #"{"cache":"tiny","memory":{"maxCount":1}}"#),
        request(2, "cache.open", #"{"cache":"short","lifespan":1}"#),
        request(3, "cache.open", #"{"cache":"mem","persistent":false}"#),
    ]
    private static let cacheNamesOfEveryKind = ["default", "tiny", "short", "mem"]

    /// `params` (an object) naming `cache`, unless it is the default one.
    private static func scoped(_ params: String, to cache: String) -> String {
        cache == "default" ? params : #"{"cache":"\#(cache)","# + params.dropFirst()
    }

    /// Increments whose `by` and `initial` are plain integers are answered
    /// directly, held or refused alike (-31081 for a value that is not an
    /// integer or a sum out of range), over counters in the memory tier, on
    /// disk only, expired, and in a memory-only cache; the rest declined.
    func testIncrementsAnswerAlike() throws {
        try assertIncrementsAnswerAlike(onPostgreSQL: false)
    }

    /// On PostgreSQL a direct increment is added by the statement that
    /// writes it and answered at the commit (see the conditional sets').
    func testIncrementsAnswerAlikeOnPostgreSQL() throws {
        try assertIncrementsAnswerAlike(onPostgreSQL: true)
    }

    private func assertIncrementsAnswerAlike(onPostgreSQL: Bool) throws {
        var lines = Self.cachesOfEveryKind
        var id = lines.count
        for cache in Self.cacheNamesOfEveryKind {
            let params = [
                #"{"key":"n"}"#, #"{"key":"n","by":5}"#, #"{"key":"m","by":-3,"initial":10}"#, #"{"key":"n","by":-7}"#,
                #"{"group":"g","key":"n","by":2,"ttl":30}"#, #"{"key":"n","ttl":1.5}"#, #"{"key":"n","by":1.0}"#,
                #"{"key":"n","by":1e1}"#, #"{"key":"n","by":"1"}"#, #"{"key":"n","by":null}"#, #"{"key":"n","by":-0}"#,
                #"{"key":"n","by":9007199254740991}"#, #"{"key":"n","by":9007199254740992}"#,
                #"{"key":"n","by":-9223372036854775808}"#, #"{"key":"n","initial":-9223372036854775808}"#,
                #"{"key":"n","initial":-9007199254740991,"by":-1}"#, #"{"key":"s","by":1}"#,
                #"{"key":"n","extra":1}"#, #"{"key":"","by":1}"#, #"{"key":"n","ttl":"5"}"#, #"{"key":"o"}"#,
            ]
            id += 1; lines.append(request(id, "cache.set", #"{"cache":"\#(cache)","key":"s","value":"text"}"#))
            id += 1; lines.append(request(id, "cache.set", #"{"cache":"\#(cache)","key":"o","value":1.5}"#))
            for p in params {
                id += 1; lines.append(request(id, "cache.increment", Self.scoped(p, to: cache)))
            }
            id += 1; lines.append(request(id, "cache.getMany", #"{"cache":"\#(cache)","keys":["n","m"]}"#))
        }
        id += 1; lines.append(request(id, "debug.advanceClock", #"{"seconds":2}"#))
        id += 1; lines.append(request(id, "cache.increment", #"{"cache":"short","key":"m","by":4,"initial":100}"#))
        let answers = try assertBothPathsAgree(lines, enableTestMethods: true, onPostgreSQL: onPostgreSQL)
        XCTAssertGreaterThanOrEqual(answers.filter { $0.contains("-31081") }.count, 4 * 3, "refusals in every cache")
        XCTAssertTrue(answers.last?.contains(#""value":104"#) == true, "an expired counter starts again: \(answers.last ?? "")")
    }

    /// Leases taken without `wait` and given back by plain params are
    /// answered directly: taken, held (here), given back, expired, refused
    /// for a wrong token or bad params alike; the rest declined.
    func testLeasesAnswerAlike() throws {
        let params: [(String, String)] = [
            ("lock.acquire", #"{"name":"job","ttl":30}"#), ("lock.acquire", #"{"name":"job","ttl":30}"#),
            ("lock.release", #"{"name":"job","token":2}"#), ("lock.release", #"{"name":"job","token":1}"#),
            ("lock.release", #"{"name":"job","token":1}"#), ("lock.acquire", #"{"name":"job","ttl":0.5}"#),
            ("lock.acquire", #"{"name":"short","ttl":1}"#), ("debug.advanceClock", #"{"seconds":2}"#),
            ("lock.release", #"{"name":"short","token":1}"#), ("lock.acquire", #"{"name":"short","ttl":1e1}"#),
            ("lock.acquire", #"{"name":"aé","ttl":30}"#), ("lock.acquire", #"{"name":"é","ttl":30}"#),
            ("lock.acquire", #"{"name":"x","ttl":0}"#), ("lock.acquire", #"{"name":"x","ttl":-1}"#),
            ("lock.acquire", #"{"name":"x","ttl":31536001}"#), ("lock.acquire", #"{"name":"x","ttl":"30"}"#),
            ("lock.acquire", #"{"name":"","ttl":30}"#), ("lock.acquire", #"{"name":"x"}"#), ("lock.acquire", #"{"ttl":30}"#),
            ("lock.acquire", #"{"name":"\#(String(repeating: "n", count: 1025))","ttl":30}"#),
            ("lock.acquire", #"{"name":"job","ttl":30,"wait":0}"#), ("lock.acquire", #"{"name":"job","ttl":30,"extra":1}"#),
            ("lock.release", #"{"name":"job","token":0}"#), ("lock.release", #"{"name":"job","token":-3}"#),
            ("lock.release", #"{"name":"job","token":3.0}"#), ("lock.release", #"{"name":"nobody","token":1}"#),
            ("lock.release", #"{"name":"job","token":99999999999999999999}"#), ("lock.list", #"{}"#),
        ]
        let lines = params.enumerated().map { request($0.offset + 1, $0.element.0, $0.element.1) }
        let answers = try assertBothPathsAgree(lines, enableTestMethods: true)
        XCTAssertTrue(answers[0].contains(#""acquired":true,"token":1"#), String(answers[0]))
        XCTAssertTrue(answers[1].contains(#""acquired":false"#) && answers[1].contains(#""heldHere":true"#), String(answers[1]))
        XCTAssertTrue(answers[3].contains(#""released":true"#), String(answers[3]))
        XCTAssertTrue(answers[4].contains(#""released":false"#), String(answers[4]))
        XCTAssertTrue(answers[8].contains(#""released":false"#), "expired: \(answers[8])")
        XCTAssertGreaterThanOrEqual(answers.filter { $0.contains("-32602") }.count, 10, "bad params refused")
    }

    /// Hits of `cache.getOrFetch` in the memory tier are answered directly;
    /// misses, expired entries, disk hits and calls with settings are not —
    /// and the counters agree too (a declined request counts nothing twice).
    func testGetOrFetchHitsAndMissesAnswerAlike() throws {
        var lines = [
            request(1, "cache.open", #"{"cache":"short","lifespan":1,"memory":{"maxCount":2}}"#),
            request(2, "cache.set", #"{"key":"a","value":{"n":1}}"#),
            request(3, "cache.set", #"{"cache":"short","key":"s","data":"AAEC"}"#),
        ]
        var id = 3
        for p in [#"{"key":"a"}"#, #"{"key":"missing"}"#, #"{"cache":"short","key":"s"}"#, #"{"cache":"nope","key":"a"}"#,
                  #"{"key":"a","retries":1}"#, #"{"key":"a","tll":1}"#, #"{"group":"","key":"a"}"#, #"{"key":""}"#] {
            id += 1; lines.append(request(id, "cache.getOrFetch", p))
        }
        // Pushed out of the memory tier (two entries): then served from disk, by the ordinary path.
        for k in ["t1", "t2", "t3"] { id += 1; lines.append(request(id, "cache.set", #"{"cache":"short","key":"\#(k)","value":1}"#)) }
        id += 1; lines.append(request(id, "cache.getOrFetch", #"{"cache":"short","key":"s"}"#))
        id += 1; lines.append(request(id, "cache.getOrFetch", #"{"cache":"short","key":"s"}"#))
        for cache in ["default", "short"] { id += 1; lines.append(request(id, "cache.stats", #"{"cache":"\#(cache)"}"#)) }
        try assertBothPathsAgree(lines)
    }

    func testEnvelopesThatArePlainOrNotAnswerAlike() throws {
        let lines = [
            #"{"jsonrpc":"2.0","id":"s-1","method":"cache.set","params":{"key":"a","value":1}}"#,
            #"{"id":2,"params":{"key":"a"},"method":"cache.get","jsonrpc":"2.0"}"#,
            #"{"jsonrpc":"2.0","id":3.50,"method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":12345678901234567890123,"method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":"quote\"d","method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","method":"cache.set","params":{"key":"n","value":"notified"}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"cache.get","params":{"key":"n"}}"#,
            #"{"jsonrpc":"1.0","id":8,"method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":9,"method":"cache\u002eget","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":10,"method":"cache.get"}"#,
            #"{"jsonrpc":"2.0","id":11,"method":"cache.get","params":{"key":"a"},"extra":1}"#,
            #"{"jsonrpc":"2.0","id":12,"id":13,"method":"cache.get","params":{"key":"a"}}"#,
            #"[{"jsonrpc":"2.0","id":14,"method":"cache.get","params":{"key":"a"}},{"jsonrpc":"2.0","id":15,"method":"cache.set","params":{"key":"b","value":2}}]"#,
            #"{"jsonrpc":"2.0","id":16,"method":"cache.get","params":{"key":"a"}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"cache.get\",\"params\":{\"key\":\"\u{7F}\"}}",
            #"  {"jsonrpc" : "2.0" , "id" : 18 , "method" : "cache.get" , "params" : { "key" : "a" } }  "#,
            #"{"jsonrpc":"2.0","id":19,"method":"shutdown"}"#,
            #"{"jsonrpc":"2.0","id":20,"method":"cache.get","params":{"key":"a"}}"#,
            #"{"jsonrpc":"2.0","id":21,"method":"cache.set","params":{"key":"a","value":1}}"#,
        ]
        try assertBothPathsAgree(lines)
    }

    func testRequestsBeforeInitializeAreRefusedAlikeWhenItIsRequired() throws {
        try assertBothPathsAgree([
            request(1, "cache.get", #"{"key":"a"}"#),
            request(2, "cache.set", #"{"key":"a","value":1}"#),
            request(3, "initialize", "{}"),
            request(4, "cache.set", #"{"key":"a","value":1}"#),
            request(5, "cache.get", #"{"key":"a"}"#),
        ], requireInitialize: true)
    }

    /// Answers held for a commit keep their order, errors from the core
    /// included, and events land where they happened.
    func testHeldAnswersErrorsAndEventsKeepTheirPlace() throws {
        var lines = [
            request(1, "cache.open", #"{"cache":"small","persistent":false,"memory":{"maxCount":2,"maxBytes":40}}"#),
            request(2, "cache.subscribe", #"{"cache":"small","events":["evicted"]}"#),
        ]
        var id = 2
        for k in 0..<6 {
            id += 1; lines.append(request(id, "cache.set", #"{"cache":"small","key":"k\#(k)","value":"\#(String(repeating: "v", count: k * 6))"}"#))
            id += 1; lines.append(request(id, "cache.get", #"{"cache":"small","key":"k\#(k)"}"#))
            id += 1; lines.append(request(id, "cache.set", #"{"key":"p\#(k)","value":\#(k)}"#))
            id += 1; lines.append(request(id, "cache.get", #"{"cache":"small","key":"k0"}"#))
        }
        try assertBothPathsAgree(lines)
    }
}

extension DirectAnswerTests {
    /// Plain requests with one byte replaced, inserted or deleted, at every
    /// position: whichever path each one takes (most stop being plain, some
    /// stay plain with another meaning), both must answer alike.
    func testRequestsChangedByOneByteAnswerAlike() throws {
        let seeds = [
            request(1, "cache.set", #"{"cache":"m","group":"g","key":"k-1","value":{"a":[1,2.5,"x"],"b":null}}"#),
            request(2, "cache.get", #"{"cache":"m","group":"g","key":"k-1"}"#),
            request(3, "cache.set", #"{"key":"k-2","value":"text","ttl":30}"#),
            request(4, "cache.set", #"{"cache":"m","group":"g","key":"k-1","data":"AAECAw==","ttl":30}"#),
        ]
        let alphabet = Array(#"{}[]",:\ -.0e1tn"#.utf8) + [0x09, 0x1F, 0x7F]
        var lines: [String] = []
        for seed in seeds {
            for v in oneByteVariants(of: Array(seed.utf8), alphabet: alphabet) {
                lines.append(String(decoding: v, as: UTF8.self))
                lines.append(request(9, "cache.get", #"{"cache":"m","group":"g","key":"k-1"}"#))
            }
        }
        try assertBothPathsAgree(lines)
    }

    /// A request that reuses the id of one still being worked on (which SPEC
    /// 2.2 advises against) does not hide it from `$/cancelRequest`, whichever
    /// path it takes: once its answer only waits for the commit, it is no
    /// longer being worked on (SPEC 5.1), and the cancellation reaches the other.
    func testACancellationReachesTheRequestStillWorkedOnWhenAnotherTakesItsID() throws {
        let input = [
            request(4, "debug.ask", #"{"method":"client.slow"}"#),
            request(5, "cache.set", #"{"key":"a","value":1}"#),
            request(4, "cache.get", #"{"key":"a"}"#),
            #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":4}}"#,
        ].joined(separator: "\n") + "\n"
        let ordinary = try serveSession(input, direct: false, enableTestMethods: true)
        let direct = try serveSession(input, direct: true, enableTestMethods: true)
        XCTAssertEqual(ordinary, direct)
        XCTAssertEqual(ordinary.split(separator: "\n").dropFirst().first,
                       #"{"jsonrpc":"2.0","id":4,"error":{"code":-32800,"message":"Request cancelled"}}"#, ordinary)
    }
}
