import LarderJSON

/// Value conversions for the `convert` migration step.
enum Conversion {
    static func convert(_ v: JSON, to: MigrationStep.Conversion, from: MigrationStep.Conversion?) throws -> JSON {
        func fail() -> ObjectUpgrader.StepFailure { ObjectUpgrader.StepFailure(message: "cannot convert \(v) to \(to.rawValue)") }
        switch to {
        case .string:
            switch v {
            case .string: return v
            case .number(let n): return .string(n.literal)
            case .bool(let b): return .string(b ? "true" : "false")
            default: throw fail()
            }
        case .number, .integer:
            let number: JSONNumber
            switch v {
            case .number(let n): number = n
            case .bool(let b): number = JSONNumber(b ? 1 : 0)
            case .string(let s):
                guard case .number(let n)? = try? JSONParser.parse(s.trimmingSpaces) else { throw fail() }
                number = n
            default: throw fail()
            }
            if to == .integer {
                guard let i = number.int64 else { throw fail() }
                return .number(JSONNumber(i))
            }
            return .number(number)
        case .bool:
            switch v {
            case .bool: return v
            case .number(let n): return .bool(n.double != 0)
            case .string("true"): return true
            case .string("false"): return false
            default: throw fail()
            }
        case .epochSeconds, .epochMillis:
            switch v {
            case .number(let n):
                // A number changes unit only when `from` says which unit it is in.
                if to == .epochMillis && from == .epochSeconds { return .number(JSONNumber(n.double * 1000)) }
                if to == .epochSeconds && from == .epochMillis { return .number(JSONNumber(n.double / 1000)) }
                return v
            case .string(let s):
                guard let ms = Timestamp.parse(s) else { throw fail() }
                return to == .epochMillis ? .number(JSONNumber(ms)) : .number(JSONNumber(Double(ms) / 1000))
            default: throw fail()
            }
        case .date:
            switch v {
            case .string(let s):
                guard let ms = Timestamp.parse(s) else { throw fail() }
                return .string(Timestamp.format(milliseconds: ms))
            case .number(let n):
                let ms = from == .epochMillis ? n.double : n.double * 1000
                guard ms.isFinite, abs(ms) < 1e17 else { throw fail() }
                return .string(Timestamp.format(milliseconds: Int64(ms.rounded())))
            default: throw fail()
            }
        }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
