import Foundation
import LarderJSON

/// Checks JSON values against the part of JSON Schema that protocol/openrpc.json
/// uses: `type` (a name or a list; `"integer"` is a number with an integral
/// value), `enum`, `const`, `properties`, `required`, `additionalProperties`,
/// `patternProperties`, `propertyNames`, `minProperties`, `maxProperties`,
/// `items`, `minItems`, `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`, `allOf`, `anyOf`,
/// `oneOf`, `not`, and `$ref` to a place in the same document. Annotations
/// (`description`, `default`, `examples`, `format`, ...) are passed over; any
/// other keyword, and a `$ref` that leads nowhere, is reported as a problem,
/// so that a schema never passes because this validator does not understand it.
struct JSONSchemaValidator {
    /// The document `$ref`s point into, as in `#/components/schemas/Entry`.
    let document: JSON
    /// When true, an object schema that lists `properties` and says nothing of
    /// `additionalProperties` or `patternProperties` admits no other members:
    /// a result may carry only members its schema documents.
    var closedObjects = false
    /// Transcript patterns (protocol/transcripts/README.md): the string
    /// `"{...}"` stands for any value, and a string holding `[..]` for a
    /// string, so it matches any schema a string may match.
    var acceptsTranscriptPatterns = false

    private static let annotations: Set<String> = [
        "description", "title", "default", "examples", "format", "contentEncoding", "contentMediaType",
        "deprecated", "readOnly", "writeOnly", "$comment",
    ]

    /// Every way `value` fails `schema`, each as "PATH: what is wrong"; empty when it is valid.
    func problems(_ value: JSON, against schema: JSON, at path: String = "$") -> [String] {
        var found: [String] = []
        check(value.resolved, schema, path, &found, depth: 0)
        return found
    }

    func isValid(_ value: JSON, against schema: JSON) -> Bool {
        problems(value, against: schema).isEmpty
    }

    private func check(_ value: JSON, _ schema: JSON, _ path: String, _ found: inout [String], depth: Int) {
        guard depth < 256 else { return found.append("\(path): $refs nested too deep (a cycle?)") }
        if case .bool(let accepts) = schema {
            if !accepts { found.append("\(path): no value is allowed here") }
            return
        }
        guard let keywords = schema.objectValue else { return found.append("\(path): not a schema: \(schema)") }
        if acceptsTranscriptPatterns, value == "{...}" { return }
        let standsForAString = acceptsTranscriptPatterns && (value.stringValue?.contains("[..]") ?? false)

        for (keyword, argument) in keywords.members {
            switch keyword {
            case "$ref":
                guard let reference = argument.stringValue, let target = resolve(reference) else {
                    found.append("\(path): cannot resolve $ref \(argument)")
                    continue
                }
                check(value, target, path, &found, depth: depth + 1)
            case "type":
                let names = argument.arrayValue?.compactMap(\.stringValue) ?? argument.stringValue.map { [$0] } ?? []
                if !names.contains(where: { Self.value(value, hasType: $0) }) {
                    found.append("\(path): expected \(names.joined(separator: " or ")), got \(value.typeName)")
                }
            case "enum":
                if !standsForAString, !(argument.arrayValue ?? []).contains(value) {
                    found.append("\(path): \(value) is not one of \(argument)")
                }
            case "const":
                if !standsForAString, value != argument {
                    found.append("\(path): expected \(argument), got \(value)")
                }
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard let n = value.numberValue?.double, let bound = argument.numberValue?.double else { continue }
                let holds = switch keyword {
                case "minimum": n >= bound
                case "maximum": n <= bound
                case "exclusiveMinimum": n > bound
                default: n < bound
                }
                if !holds { found.append("\(path): \(value) breaks \(keyword) \(argument)") }
            case "minLength", "maxLength":
                guard !standsForAString, let s = value.stringValue, let bound = argument.numberValue?.int else { continue }
                let length = s.unicodeScalars.count
                if keyword == "minLength" ? length < bound : length > bound {
                    found.append("\(path): string of length \(length) breaks \(keyword) \(bound)")
                }
            case "pattern":
                guard !standsForAString, let s = value.stringValue, let pattern = argument.stringValue else { continue }
                if !Self.search(pattern, in: s) { found.append("\(path): \(value) does not match the pattern \(pattern)") }
            case "items":
                guard let elements = value.arrayValue else { continue }
                for (k, element) in elements.enumerated() {
                    check(element, argument, "\(path)[\(k)]", &found, depth: depth + 1)
                }
            case "minItems", "maxItems":
                guard let count = value.arrayValue?.count, let bound = argument.numberValue?.int else { continue }
                if keyword == "minItems" ? count < bound : count > bound {
                    found.append("\(path): \(count) elements break \(keyword) \(bound)")
                }
            case "required":
                guard let object = value.objectValue else { continue }
                for name in argument.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                    found.append("\(path): missing required member \"\(name)\"")
                }
            case "properties", "additionalProperties", "patternProperties":
                // Checked together below: which members are additional depends on all three.
                continue
            case "propertyNames":
                guard let object = value.objectValue else { continue }
                for name in object.keys { check(.string(name), argument, "\(path) name \"\(name)\"", &found, depth: depth + 1) }
            case "minProperties", "maxProperties":
                guard let count = value.objectValue?.count, let bound = argument.numberValue?.int else { continue }
                if keyword == "minProperties" ? count < bound : count > bound {
                    found.append("\(path): \(count) members break \(keyword) \(bound)")
                }
            case "allOf":
                for branch in argument.arrayValue ?? [] { check(value, branch, path, &found, depth: depth + 1) }
            case "anyOf", "oneOf":
                let branches = argument.arrayValue ?? []
                var branchProblems: [[String]] = []
                for branch in branches {
                    var problems: [String] = []
                    check(value, branch, path, &problems, depth: depth + 1)
                    branchProblems.append(problems)
                }
                let matching = branchProblems.filter(\.isEmpty).count
                if matching == 0 {
                    let reasons = branchProblems.enumerated().map { "[\($0.offset)] \($0.element.joined(separator: "; "))" }
                    found.append("\(path): matches none of \(keyword): \(reasons.joined(separator: " | "))")
                } else if keyword == "oneOf", matching > 1, !(acceptsTranscriptPatterns && Self.holdsPattern(value)) {
                    found.append("\(path): matches \(matching) branches of oneOf, not exactly one")
                }
            case "not":
                if isValid(value, against: argument) { found.append("\(path): matches the schema under not: \(argument)") }
            default:
                if !Self.annotations.contains(keyword) { found.append("\(path): unsupported schema keyword \"\(keyword)\"") }
            }
        }
        if let object = value.objectValue { checkMembers(object, keywords, path, &found, depth: depth) }
    }

    private func checkMembers(_ object: JSONObject, _ keywords: JSONObject, _ path: String, _ found: inout [String], depth: Int) {
        let properties = keywords["properties"]?.objectValue ?? JSONObject()
        let patterns = keywords["patternProperties"]?.objectValue ?? JSONObject()
        var additional = keywords["additionalProperties"]
        if additional == nil, closedObjects, keywords["properties"] != nil, keywords["patternProperties"] == nil {
            additional = false
        }
        for (name, member) in object.members {
            let place = "\(path).\(name)"
            var described = false
            if let schema = properties[name] {
                described = true
                check(member, schema, place, &found, depth: depth + 1)
            }
            for (pattern, schema) in patterns.members where Self.search(pattern, in: name) {
                described = true
                check(member, schema, place, &found, depth: depth + 1)
            }
            guard !described, let additional else { continue }
            if additional == false {
                found.append("\(path): unexpected member \"\(name)\"")
            } else {
                check(member, additional, place, &found, depth: depth + 1)
            }
        }
    }

    /// The schema a `$ref` such as `#/components/schemas/Entry` names, nil if it names none.
    private func resolve(_ reference: String) -> JSON? {
        guard reference.hasPrefix("#") else { return nil }
        var target = document
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let elements = target.arrayValue {
                guard let k = Int(name), elements.indices.contains(k) else { return nil }
                target = elements[k]
            } else {
                guard let next = target[name] else { return nil }
                target = next
            }
        }
        return target
    }

    private static func value(_ value: JSON, hasType name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): return true
        case ("number", .number): return true
        case ("integer", .number(let n)): return n.isInteger || (n.double.isFinite && n.double.rounded() == n.double)
        default: return false
        }
    }

    /// ECMA-style `pattern`: found anywhere in the string unless anchored.
    private static func search(_ pattern: String, in text: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private static func holdsPattern(_ value: JSON) -> Bool {
        switch value {
        case .string(let s): return s == "{...}" || s.contains("[..]")
        case .array(let elements): return elements.contains(where: holdsPattern)
        case .object(let object): return object.members.contains { holdsPattern($0.value) }
        default: return false
        }
    }
}
