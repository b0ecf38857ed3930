import XCTest
import LarderJSON
@testable import LarderCore
import LarderStorage

// Helpers shared by the Entity… tests.

/// JSONCache's model (seed 003): bands, their members, musicians and albums.
func bandsModel(casing: String = "snake_case", dateFormat: String = "iso8601", extra: String = "") -> String {
    #"""
    {"model": "Bands", "casing": "\#(casing)", "dateFormat": "\#(dateFormat)"\#(extra), "entities": [
      {"name": "Band", "identifier": "name",
       "attributes": {"name": "string", "formed": "integer", "disbanded": "integer?", "hiatus": "string?",
                      "bandDescription": "string?", "otherNames": "string?"},
       "relationships": [{"name": "albums", "destination": "Album", "toMany": true, "inverse": "band", "deleteRule": "cascade"},
                         {"name": "members", "destination": "BandMember", "toMany": true, "inverse": "band", "deleteRule": "cascade"}]},
      {"name": "BandMember",
       "attributes": {"id": "string", "instruments": "string", "joined": "integer", "left": "integer?"},
       "relationships": [{"name": "band", "destination": "Band", "inverse": "members"},
                         {"name": "musician", "destination": "Musician", "inverse": "bands"}]},
      {"name": "Musician", "identifier": "name",
       "attributes": {"name": "string", "born": "integer", "died": "integer?", "instruments": "string"},
       "relationships": [{"name": "bands", "destination": "BandMember", "toMany": true, "inverse": "musician", "deleteRule": "deny"}]},
      {"name": "Album", "identifier": "name",
       "attributes": {"name": "string", "released": "date", "label": "string"},
       "relationships": [{"name": "band", "destination": "Band", "inverse": "albums"}]}
    ]}
    """#
}

let japan = #"{"name": "Japan", "formed": 1974, "disbanded": 1991, "hiatus": "1982-1989", "description": "Initially a glam-inspired group"}"#
let sylvian = #"{"name": "David Sylvian", "born": 1958, "instruments": "Vocals, guitar, keyboards"}"#
let sylvianInJapan = #"{"id": "David Sylvian in Japan", "musician": "David Sylvian", "band": "Japan", "instruments": "Lead vocals", "joined": 1974, "left": 1991}"#
let tinDrum = #"{"name": "Tin Drum", "band": "Japan", "released": "1981-11-13T00:00:00Z", "label": "Virgin"}"#
let polaroids = #"{"name": "Gentlemen Take Polaroids", "band": "Japan", "released": "1980-10-24T00:00:00Z", "label": "Virgin"}"#

extension Store {
    /// Defines a model written as JSON text.
    @discardableResult
    func define(_ definition: String) throws -> ModelDefinitionResult {
        try define(EntityModel(definition: json(definition)))
    }

    /// Stages records written as JSON texts.
    @discardableResult
    func stage(_ entity: String, _ records: String...) throws -> Int {
        try stage(records.map { json($0) }, entity: entity)
    }

    /// Stage + apply of records written as JSON texts.
    @discardableResult
    func upsert(_ entity: String, _ records: String..., onMissing: MissingReferencePolicy = .fail) throws -> ApplyResult {
        try upsert(records.map { json($0) }, entity: entity, onMissing: onMissing)
    }

    /// A record by a string identifier.
    func record(_ entity: String, _ id: String, include: [String] = []) throws -> JSON? {
        try record(entity, id: .string(id), include: include)
    }

    /// Identifiers of the records a query selects.
    func ids(_ entity: String, where conditions: String? = nil, orderBy: [String] = [], limit: Int? = nil, offset: Int = 0) throws -> [String] {
        let q = RecordQuery(conditions: conditions.map { json($0) }, orderBy: orderBy, limit: limit, offset: offset)
        let key = try entityModels().flatMap(\.entities).first { $0.name == entity }.map { $0.keys.key(forName: $0.identifier) } ?? "id"
        return try query(entity, q).map { $0[key]?.stringValue ?? $0[key]?.description ?? "?" }
    }
}

func applyResult(inserted: Int = 0, updated: Int = 0, linked: Int = 0, unresolved: Int = 0) -> ApplyResult {
    var r = ApplyResult()
    r.inserted = inserted
    r.updated = updated
    r.linked = linked
    r.unresolved = unresolved
    return r
}

/// Asserts that `body` throws `.invalidArgument` naming `field` with a reason containing `words`.
func assertInvalid(_ field: String, _ words: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected invalidArgument(\(field)), nothing was thrown", file: file, line: line)
    } catch let StoreError.invalidArgument(f, reason) {
        XCTAssertEqual(f, field, reason, file: file, line: line)
        XCTAssertTrue(reason.contains(words), "\"\(reason)\" does not contain \"\(words)\"", file: file, line: line)
    } catch {
        XCTFail("expected invalidArgument(\(field)), got \(error)", file: file, line: line)
    }
}
