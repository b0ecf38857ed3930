import LarderCore
import LarderJSON

/// The keys a replay gives where a recording says `"[redacted]"` (a key
/// `--record` did not write, `RecordingRedaction`): in `initialize`'s
/// `encryption.key` and `encryption.keys`, and in `cache.rekey`'s `key`.
/// Each is a key of its own, so that a rekey changes the key as it did when
/// recorded; a fresh store takes any key.
struct RedactedKeys {
    private var given = 0

    /// The `n`th key a replay gives: 32 bytes, each `n`, as base64.
    static func key(_ n: Int) -> String {
        Base64.encode([UInt8](repeating: UInt8(truncatingIfNeeded: n), count: 32))
    }

    /// `text` with each redacted key replaced by the next replay key; as it
    /// was when it holds none.
    mutating func substituted(in text: String) -> String {
        let marker = JSON.string(RecordingRedaction.marker).description
        // Text that is not JSON holds no key to substitute: it is sent as it is, to be refused.
        guard text.utf8.count >= marker.utf8.count, Substring(text).range(of: marker) != nil,
              let message = try? JSONParser.parse(Array(text.utf8)) else { return text }
        guard case .array(let items) = message else { return substituted(inMessage: message).description }
        return JSON.array(items.map { substituted(inMessage: $0) }).description
    }

    private mutating func substituted(inMessage message: JSON) -> JSON {
        guard case .object(var o) = message, case .object(var params)? = o["params"] else { return message }
        switch o["method"]?.stringValue {
        case "initialize":
            guard case .object(var encryption)? = params["encryption"] else { return message }
            if let key = encryption["key"] { encryption["key"] = substituted(key) }
            if case .object(var keys)? = encryption["keys"] {
                for k in keys.members.indices { keys.members[k].value = substituted(keys.members[k].value) }
                encryption["keys"] = .object(keys)
            }
            params["encryption"] = .object(encryption)
        case "cache.rekey":
            if let key = params["key"] { params["key"] = substituted(key) }
        default:
            return message
        }
        o["params"] = .object(params)
        return .object(o)
    }

    private mutating func substituted(_ key: JSON) -> JSON {
        guard key == .string(RecordingRedaction.marker) else { return key }
        given += 1
        return .string(Self.key(given))
    }
}
