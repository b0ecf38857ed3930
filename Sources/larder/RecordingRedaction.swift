import LarderCore
import LarderJSON
import LarderPostgreSQL
import LarderRPC

/// What `--record` writes in place of secrets (SPEC 6.10, 15.3), so that a
/// recording holds none of them and still replays:
///
/// - an encryption key (`initialize {encryption}`, `cache.rekey`) becomes
///   `"[redacted]"`, for which a replay gives a key of its own; a key the
///   server refuses becomes a stand-in it refuses alike (base64 of as many
///   zero bytes, or text that is not base64);
/// - a password in a store URL or a `password=` option becomes `***`;
/// - in a cache that may be encrypted, every group and key becomes a
///   stand-in (`~1`, `~2`, …, one per distinct part between `.`, `:` and `/`,
///   so that groups under groups and key prefixes keep their relations), a
///   value a string of `x` as long as its JSON, `data` base64 of as many zero
///   bytes, an object (`object.put`, `migrate.object`) its shape with every
///   letter and digit replaced; what the server answers about them is written
///   as patterns (`"{...}"`, `[..]`).
///
/// A cache is redacted when the session holds a key for it (`initialize
/// {encryption: {key}}` or `--key-file` for every cache, `encryption.keys`
/// for those it names) and no answer has shown it plain: a cache opened
/// encrypted in an earlier run is redacted before anything names it, and an
/// encrypted cache the session holds no key for refuses every use, so
/// nothing of it passes.
final class RecordingRedaction {
    static let marker = "[redacted]"
    private static let separators: Set<Character> = [".", ":", "/"]

    /// A key for every cache (`encryption.key`, `--key-file`).
    private var keyForEveryCache: Bool
    /// The caches `encryption.keys` names.
    private var keyedCaches: Set<String> = []
    /// Caches whose answers to `cache.open` or `cache.list` said whether they are encrypted.
    private var encrypted: [String: Bool] = [:]
    /// One stand-in per distinct part of a group or key.
    private var standIns: [String: String] = [:]
    /// Keys and passwords seen: never written, wherever they appear. Those
    /// of fewer than 4 characters are replaced only where they are given,
    /// lest every string holding those few characters be rewritten.
    private var secrets: Set<String> = []
    /// Client requests not answered yet, with what their answers need.
    private var pending: [RequestID: Pending] = [:]
    /// Requests to the client about a redacted cache, not answered yet, and how to redact the answer's value.
    private var asked: [RequestID: ValueForm] = [:]

    private struct Pending {
        let method: String
        let cache: String?
        /// `migrate.run` without a cache: it goes through every cache.
        var everyCache = false
        /// The groups and keys the request named, and the strings and numbers
        /// of its values, which an error may quote.
        var named: [String] = []
    }

    private enum ValueForm { case opaque, shaped }

    init(keyFile: Bool, storeText: String?) {
        keyForEveryCache = keyFile
        if let storeText { secrets.formUnion(Self.passwords(in: storeText)) }
    }

    // MARK: From the client

    func incoming(_ message: JSON) -> JSON {
        guard case .array(let items) = message else { return incomingItem(message) }
        return .array(items.map(incomingItem))
    }

    private func incomingItem(_ message: JSON) -> JSON {
        guard case .object(var o) = message else { return message }
        let id = o["id"].flatMap(RequestID.init)
        guard case .string(let method)? = o["method"] else {
            // An answer to a request of the server's.
            guard let id, let form = asked.removeValue(forKey: id), case .object(var result)? = o["result"] else { return message }
            redactValues(of: &result, form: form)
            o["result"] = .object(result)
            return .object(o)
        }
        guard case .object(var params)? = o["params"] else {
            if let id { pending[id] = Pending(method: method, cache: nil) }
            return message
        }
        var named: [String] = []
        var cache: String?
        switch method {
        case "initialize":
            redactInitialize(&params)
        case "cache.rekey":
            if case .string(let key)? = params["key"] { params["key"] = .string(redactedKey(key)) }
            cache = params["cache"]?.stringValue ?? "default"
        case "cache.drop":
            if let name = params["cache"]?.stringValue { encrypted[name] = nil }
        case "cache.open":
            let name = params["cache"]?.stringValue ?? "default"
            if params["encrypted"] == .bool(true) { encrypted[name] = true }
            cache = name
        case "migrate.run":
            cache = params["cache"]?.stringValue
        case "cache.transaction":
            cache = redactTransaction(&params, named: &named)
        default:
            guard method.hasPrefix("cache.") || method.hasPrefix("object.") else { break }
            let name = params["cache"]?.stringValue ?? "default"
            cache = name
            // object.copy writes into toCache, which may be encrypted when the source is not.
            if isRedacted(name) || params["toCache"]?.stringValue.map(isRedacted) == true {
                cache = isRedacted(name) ? name : params["toCache"]?.stringValue
                redactEntries(in: &params, method: method, named: &named)
            }
        }
        o["params"] = .object(params)
        if let id {
            pending[id] = Pending(method: method, cache: cache, everyCache: method == "migrate.run" && cache == nil, named: named)
        }
        return .object(o)
    }

    private func redactInitialize(_ params: inout JSONObject) {
        if case .object(var encryption)? = params["encryption"] {
            if case .string(let key)? = encryption["key"] {
                encryption["key"] = .string(redactedKey(key))
                keyForEveryCache = true
            }
            if case .object(var keys)? = encryption["keys"] {
                for k in keys.members.indices {
                    keyedCaches.insert(keys.members[k].key)
                    if case .string(let key) = keys.members[k].value { keys.members[k].value = .string(redactedKey(key)) }
                }
                encryption["keys"] = .object(keys)
            }
            params["encryption"] = .object(encryption)
        }
        if case .object(var store)? = params["store"], case .string(let url)? = store["url"] {
            secrets.formUnion(Self.passwords(in: url))
            store["url"] = .string(Self.withoutPasswords(url))
            params["store"] = .object(store)
        }
    }

    /// `"[redacted]"` for a key the server takes; for one it refuses, text it refuses alike.
    private func redactedKey(_ text: String) -> String {
        secrets.insert(text)
        guard let bytes = Base64.decode(text) else { return Self.marker + " (not base64)" }
        return bytes.count == 32 ? Self.marker : Base64.encode([UInt8](repeating: 0, count: bytes.count))
    }

    private func isRedacted(_ cache: String) -> Bool {
        (keyForEveryCache || keyedCaches.contains(cache)) && encrypted[cache] != false
    }

    /// The groups, keys, values and data of a request to a redacted cache.
    private func redactEntries(in params: inout JSONObject, method: String, named: inout [String]) {
        let shaped = method.hasPrefix("object.")
        for k in params.members.indices {
            let member = params.members[k].key
            let value = params.members[k].value
            switch member {
            case "group", "toGroup", "key", "toKey", "keys", "prefix", "cursor":
                params.members[k].value = standIn(value, named: &named)
            case "a", "b":
                // object.equals: a key, or an object given inline.
                guard case .object(var operand) = value else {
                    params.members[k].value = standIn(value, named: &named)
                    continue
                }
                redactEntries(in: &operand, method: method, named: &named)
                params.members[k].value = .object(operand)
            case "value", "values":
                Self.leaves(of: value, into: &named)
                params.members[k].value = shaped ? Self.shape(of: value) : Self.opaque(value)
            case "data":
                if let text = value.stringValue { named.append(text) }
                params.members[k].value = Self.zeroData(value)
            case "entries":
                guard case .array(let entries) = value else { continue }
                params.members[k].value = .array(entries.map { entry in
                    guard case .object(var e) = entry else { return entry }
                    redactEntries(in: &e, method: method, named: &named)
                    return .object(e)
                })
            default:
                continue
            }
        }
    }

    /// The comparisons and operations of a `cache.transaction` that name a
    /// redacted cache, each redacted as the request naming its entry alone
    /// would be; returns the first such cache (nil: none), whose redaction
    /// then covers the whole answer.
    private func redactTransaction(_ params: inout JSONObject, named: inout [String]) -> String? {
        var redactedCache: String?
        for k in params.members.indices {
            guard case .array(let elements) = params.members[k].value else { continue }
            params.members[k].value = .array(elements.map { element in
                guard case .object(var e) = element else { return element }
                let name = e["cache"]?.stringValue ?? "default"
                guard isRedacted(name) else { return element }
                redactedCache = redactedCache ?? name
                redactEntries(in: &e, method: "cache.transaction", named: &named)
                return .object(e)
            })
        }
        return redactedCache
    }

    /// A group or key (or an array of them) with each part between separators replaced by its stand-in.
    private func standIn(_ value: JSON, named: inout [String]) -> JSON {
        switch value {
        case .string(let text):
            named.append(text)
            var result = "", part = ""
            for c in text {
                if Self.separators.contains(c) {
                    result += standIn(part: part) + String(c)
                    part = ""
                } else {
                    part.append(c)
                }
            }
            return .string(result + standIn(part: part))
        case .array(let items):
            return .array(items.map { standIn($0, named: &named) })
        default:
            return value
        }
    }

    /// The strings and number literals in a value.
    private static func leaves(of value: JSON, into named: inout [String]) {
        switch value {
        case .string(let text): named.append(text)
        case .number(let n): named.append(n.literal)
        case .array(let items): for item in items { leaves(of: item, into: &named) }
        case .object(let o): for member in o.members { leaves(of: member.value, into: &named) }
        default: break
        }
    }

    private func standIn(part: String) -> String {
        guard !part.isEmpty else { return "" }
        if let s = standIns[part] { return s }
        let s = "~\(standIns.count + 1)"
        standIns[part] = s
        return s
    }

    // MARK: From the server

    func outgoing(_ message: JSON) -> JSON {
        guard case .array(let items) = message else { return outgoingItem(message) }
        return .array(items.map(outgoingItem))
    }

    private func outgoingItem(_ message: JSON) -> JSON {
        guard case .object(var o) = message else { return message }
        if case .string(let method)? = o["method"] {
            // An event, or a request to the client.
            guard case .object(var params)? = o["params"], let cache = params["cache"]?.stringValue, isRedacted(cache) else { return message }
            Self.hideEntries(in: &params)
            o["params"] = .object(params)
            if let id = o["id"].flatMap(RequestID.init) {
                asked[id] = method == "migrate.object" ? .shaped : .opaque
            }
            return .object(o)
        }
        guard let id = o["id"].flatMap(RequestID.init), let request = pending.removeValue(forKey: id) else { return message }
        let redacted = request.cache.map(isRedacted) ?? (request.everyCache && (keyForEveryCache || !keyedCaches.isEmpty))
        if case .object(var result)? = o["result"] {
            learnEncryption(from: result, of: request)
            guard redacted, request.method != "cache.open", request.method != "cache.rekey" else { return message }
            Self.hideEntries(in: &result)
            // cache.transaction: each operation's result, and the comparison that failed.
            if case .array(let results)? = result["results"] {
                result["results"] = .array(results.map { r in
                    guard case .object(var r) = r else { return r }
                    Self.hideEntries(in: &r)
                    return .object(r)
                })
            }
            if case .object(var failed)? = result["failed"] {
                Self.hideEntries(in: &failed)
                result["failed"] = .object(failed)
            }
            if case .array(let failures)? = result["failures"] {
                // migrate.run: each failure names its entry, and its error may quote it.
                result["failures"] = .array(failures.map { failure in
                    guard case .object(var f) = failure, f["cache"]?.stringValue.map(isRedacted) != false else { return failure }
                    Self.hideEntries(in: &f)
                    if case .object(var error)? = f["error"] {
                        hideQuotes(in: &error, of: request, orAnyKey: true)
                        f["error"] = .object(error)
                    }
                    return .object(f)
                })
            }
            if case .object(var entries)? = result["entries"] {
                var named: [String] = []
                for k in entries.members.indices {
                    entries.members[k].key = standIn(.string(entries.members[k].key), named: &named).stringValue ?? ""
                    if case .object(var entry) = entries.members[k].value {
                        Self.hideEntries(in: &entry)
                        entries.members[k].value = .object(entry)
                    }
                }
                result["entries"] = .object(entries)
            }
            o["result"] = .object(result)
        } else if case .object(var error)? = o["error"], redacted {
            hideQuotes(in: &error, of: request)
            o["error"] = .object(error)
        } else {
            return message
        }
        return .object(o)
    }

    /// An error about a redacted cache: the groups, keys and values it may
    /// quote become `[..]` in its strings (those the request named, and with
    /// `orAnyKey` every part of a group or key seen, for `migrate.run`'s
    /// failures, which name keys no request did), and its data's members that
    /// hold them match anything. One or two characters are hidden only
    /// quoted (`"a"`), lest every such letter in the message go.
    private func hideQuotes(in error: inout JSONObject, of request: Pending, orAnyKey: Bool = false) {
        if case .object(var data)? = error["data"] {
            Self.hideEntries(in: &data)
            error["data"] = .object(data)
        }
        let needles = (request.named + (orAnyKey ? Array(standIns.keys) : [])).map { $0.count < 3 ? "\"\($0)\"" : $0 }
        error = Self.replacingStrings(in: .object(error)) { Self.hiding(needles, in: $0, by: "[..]") }.objectValue ?? error
    }

    /// Whether caches are encrypted, from the answers that say so.
    private func learnEncryption(from result: JSONObject, of request: Pending) {
        switch request.method {
        case "cache.open":
            if let name = result["cache"]?.stringValue, let flag = result["config"]?["encrypted"]?.boolValue { encrypted[name] = flag }
        case "cache.list":
            for cache in result["caches"]?.arrayValue ?? [] {
                if let name = cache["name"]?.stringValue, let flag = cache["config"]?["encrypted"]?.boolValue { encrypted[name] = flag }
            }
        case "cache.rekey":
            if let name = result["cache"]?.stringValue { encrypted[name] = true }
        default:
            break
        }
    }

    /// Members of an answer, event or request to the client that hold a
    /// group, key or value, or are computed from one, match anything.
    private static func hideEntries(in o: inout JSONObject) {
        for k in o.members.indices where hidden.contains(o.members[k].key) {
            o.members[k].value = "{...}"
        }
    }

    private static let hidden: Set<String> = ["group", "key", "keys", "groups", "cursor", "value", "values", "data", "description", "hash", "equal"]

    /// `text` with every occurrence of `needles` replaced by `replacement`
    /// (the longest first, one replacement for a run of them).
    private static func hiding(_ needles: [String], in text: String, by replacement: String) -> String {
        let needles = needles.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        guard needles.contains(where: { text.contains($0) }) else { return text }
        var result = "", rest = Substring(text)
        while !rest.isEmpty {
            if let needle = needles.first(where: { rest.hasPrefix($0) }) {
                if !result.hasSuffix(replacement) { result += replacement }
                rest = rest.dropFirst(needle.count)
            } else {
                result.append(rest.removeFirst())
            }
        }
        return result
    }

    private func redactValues(of result: inout JSONObject, form: ValueForm) {
        if let value = result["value"] { result["value"] = form == .shaped ? Self.shape(of: value) : Self.opaque(value) }
        if let data = result["data"] { result["data"] = Self.zeroData(data) }
    }

    // MARK: Stand-ins for values

    /// A string as long, in JSON, as `value`: the server stores it in as many bytes.
    private static func opaque(_ value: JSON) -> JSON {
        let length = value.description.utf8.count
        return length < 2 ? .int(0) : .string(String(repeating: "x", count: length - 2))
    }

    /// The same members and types as `value`, every letter and digit replaced
    /// (a time keeps its `T` and `Z`), so that it still validates against its
    /// schema; member names are the schema's fields and stay.
    private static func shape(of value: JSON) -> JSON {
        switch value {
        case .string(let text):
            let isTime = Timestamp.parse(text) != nil
            return .string(String(text.unicodeScalars.map { c -> String in
                if c.properties.numericType != nil && c.isASCII { return "1" }
                if isTime && (c == "T" || c == "Z" || c == "t" || c == "z") { return String(c) }
                if c.isASCII { return c.properties.isUppercase ? "X" : (c.properties.isAlphabetic ? "x" : String(c)) }
                return String(repeating: "x", count: String(c).utf8.count)
            }.joined()))
        case .number(let n):
            return .number(JSONNumber(validLiteral: String(n.literal.map { $0.isNumber ? "1" : $0 })))
        case .array(let items):
            return .array(items.map(shape))
        case .object(var o):
            for k in o.members.indices { o.members[k].value = shape(of: o.members[k].value) }
            return .object(o)
        default:
            return value
        }
    }

    /// Base64 of as many zero bytes; text that is not base64 stays not base64.
    private static func zeroData(_ value: JSON) -> JSON {
        guard case .string(let text) = value else { return value }
        guard let bytes = Base64.decode(text) else { return .string(String(repeating: "!", count: text.count)) }
        return .string(Base64.encode([UInt8](repeating: 0, count: bytes.count)))
    }

    // MARK: Secrets anywhere

    /// A message with every key and password seen replaced in its strings:
    /// by `[..]` in what the server sent (a pattern), by `[redacted]` in what
    /// the client sent.
    func scrubbed(_ message: JSON, fromServer: Bool) -> JSON {
        let secrets = secrets.filter { $0.count >= 4 }
        guard !secrets.isEmpty else { return message }
        return Self.replacing(Array(secrets), in: message, by: fromServer ? "[..]" : Self.marker)
    }

    /// Text that is not JSON, with every key and password seen replaced.
    func scrubbed(text: String) -> String {
        Self.hiding(secrets.filter { $0.count >= 4 }, in: text, by: Self.marker)
    }

    private static func replacing(_ secrets: [String], in json: JSON, by replacement: String) -> JSON {
        replacingStrings(in: json) { hiding(secrets, in: $0, by: replacement) }
    }

    /// `json` with `change` applied to each string value in it.
    private static func replacingStrings(in json: JSON, _ change: (String) -> String) -> JSON {
        switch json {
        case .string(let text):
            return .string(change(text))
        case .array(let items):
            return .array(items.map { replacingStrings(in: $0, change) })
        case .object(var o):
            for k in o.members.indices { o.members[k].value = replacingStrings(in: o.members[k].value, change) }
            return .object(o)
        default:
            return json
        }
    }

    /// The passwords in a connection URL or `key=value` string.
    static func passwords(in text: String) -> [String] {
        var found: [String] = []
        let chars = Array(text)
        if let scheme = Substring(text).range(of: "://") {
            let start = text.distance(from: text.startIndex, to: scheme.upperBound)
            let end = chars[start...].firstIndex { $0 == "/" || $0 == "?" } ?? chars.count
            if let at = chars[start..<end].lastIndex(of: "@"), let colon = chars[start..<at].firstIndex(of: ":"), colon + 1 < at {
                found.append(String(chars[(colon + 1)..<at]))
            }
        }
        for range in passwordOptionValues(in: chars) where !range.isEmpty { found.append(String(chars[range])) }
        return found
    }

    /// `text` with its passwords as `***`.
    static func withoutPasswords(_ text: String) -> String {
        var chars = Array(PostgresStore.redacted(text))
        for range in passwordOptionValues(in: chars).reversed() { chars.replaceSubrange(range, with: "***") }
        return String(chars)
    }

    /// Where the values of `password=` options are: up to `&` or a space, or quoted in `'…'`.
    private static func passwordOptionValues(in chars: [Character]) -> [Range<Int>] {
        let name = Array("password")
        var ranges: [Range<Int>] = []
        var k = 0
        while k + name.count <= chars.count {
            guard Array(chars[k..<(k + name.count)]).map({ Character($0.lowercased()) }) == name,
                  k == 0 || !(chars[k - 1].isLetter || chars[k - 1] == "_") else { k += 1; continue }
            var i = k + name.count
            while i < chars.count && chars[i] == " " { i += 1 }
            guard i < chars.count && chars[i] == "=" else { k += 1; continue }
            i += 1
            while i < chars.count && chars[i] == " " { i += 1 }
            let start = i
            if i < chars.count && chars[i] == "'" {
                i += 1
                while i < chars.count && chars[i] != "'" { i += chars[i] == "\\" ? 2 : 1 }
                i = min(i + 1, chars.count)
            } else {
                while i < chars.count && chars[i] != "&" && chars[i] != " " { i += 1 }
            }
            ranges.append(start..<i)
            k = i
        }
        return ranges
    }
}
