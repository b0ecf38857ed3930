import XCTest
@testable import LarderJSON

/// One row of a JSONTestSuite-style table: `y_…` must parse, `n_…` must be rejected.
struct JSONCase {
    let name: String
    let bytes: [UInt8]

    init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    init(_ name: String, _ text: String) {
        self.init(name, Array(text.utf8))
    }
}

/// One row of a rejection table with the exact error expected.
struct RejectionCase {
    let name: String
    let bytes: [UInt8]
    let reason: JSONParseError.Reason
    let offset: Int

    init(_ name: String, _ bytes: [UInt8], _ reason: JSONParseError.Reason, at offset: Int) {
        self.name = name
        self.bytes = bytes
        self.reason = reason
        self.offset = offset
    }

    init(_ name: String, _ text: String, _ reason: JSONParseError.Reason, at offset: Int) {
        self.init(name, Array(text.utf8), reason, at: offset)
    }
}

/// The UTF-8 bytes of `text`; lets tables mix text and raw bytes: `u8("[\"") + [0xC0, 0x80] + u8("\"]")`.
func u8(_ text: String) -> [UInt8] { Array(text.utf8) }

func parseResult(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> Result<JSON, JSONParseError> {
    Result { () throws(JSONParseError) -> JSON in try JSONParser.parse(bytes, maxDepth: maxDepth) }
}

func hexDump(_ bytes: [UInt8]) -> String {
    bytes.map { byte -> String in
        let hex = String(byte, radix: 16, uppercase: true)
        return hex.count == 1 ? "0" + hex : hex
    }.joined(separator: " ")
}

/// Asserts that every `y_` case parses, and returns the parsed values by name.
@discardableResult
func assertAllAccepted(_ cases: [JSONCase], file: StaticString = #filePath, line: UInt = #line) -> [String: JSON] {
    var values: [String: JSON] = [:]
    for c in cases {
        XCTAssertTrue(c.name.hasPrefix("y_"), "\(c.name): accepted cases are named y_…", file: file, line: line)
        switch parseResult(c.bytes) {
        case .success(let value): values[c.name] = value
        case .failure(let error):
            XCTFail("\(c.name) [\(hexDump(c.bytes))] must parse, got: \(error)", file: file, line: line)
        }
    }
    return values
}

/// Asserts that every `n_` case is rejected (any reason).
func assertAllRejected(_ cases: [JSONCase], file: StaticString = #filePath, line: UInt = #line) {
    for c in cases {
        XCTAssertTrue(c.name.hasPrefix("n_"), "\(c.name): rejected cases are named n_…", file: file, line: line)
        if case .success(let value) = parseResult(c.bytes) {
            XCTFail("\(c.name) [\(hexDump(c.bytes))] must be rejected, parsed as \(value)", file: file, line: line)
        }
    }
}

/// Asserts that every case is rejected with exactly its reason and offset.
func assertAllRejected(_ cases: [RejectionCase], file: StaticString = #filePath, line: UInt = #line) {
    for c in cases {
        XCTAssertTrue(c.name.hasPrefix("n_"), "\(c.name): rejected cases are named n_…", file: file, line: line)
        switch parseResult(c.bytes) {
        case .success(let value):
            XCTFail("\(c.name) [\(hexDump(c.bytes))] must be rejected, parsed as \(value)", file: file, line: line)
        case .failure(let error):
            XCTAssertEqual(error.reason, c.reason, "\(c.name) [\(hexDump(c.bytes))]: reason (\(error))", file: file, line: line)
            XCTAssertEqual(error.offset, c.offset, "\(c.name) [\(hexDump(c.bytes))]: offset (\(error))", file: file, line: line)
        }
    }
}

/// Parses text that must be valid, failing the test (and returning nil) otherwise.
func mustParse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSON? {
    mustParse(u8(text), file: file, line: line)
}

func mustParse(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSON? {
    switch parseResult(bytes) {
    case .success(let value): return value
    case .failure(let error):
        XCTFail("[\(hexDump(bytes))] must parse, got: \(error)", file: file, line: line)
        return nil
    }
}

/// The error `bytes` is rejected with, failing the test if it parses.
func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth, file: StaticString = #filePath, line: UInt = #line) -> JSONParseError? {
    switch parseResult(bytes, maxDepth: maxDepth) {
    case .success(let value):
        XCTFail("[\(hexDump(bytes.count > 64 ? Array(bytes.prefix(64)) : bytes))] must be rejected, parsed as \(value)", file: file, line: line)
        return nil
    case .failure(let error): return error
    }
}

func parseError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONParseError? {
    parseError(u8(text), file: file, line: line)
}

/// The parsed string value of a JSON text that must be a string.
func parsedString(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String? {
    guard let value = mustParse(bytes, file: file, line: line) else { return nil }
    guard case .string(let s) = value else {
        XCTFail("expected a string, got \(value)", file: file, line: line)
        return nil
    }
    return s
}
