import LarderJSON

/// What an object entry holds: one object (`object.put {value}`), or an
/// array of objects of one type (`object.put {values}`).
public enum ObjectContent: Sendable {
    case single(StoredObject)
    case array(StoredObjectArray)

    /// Reads an object entry's tagged form; nil for anything else.
    public init?(_ json: JSON) {
        if let one = StoredObject(json) {
            self = .single(one)
        } else if let many = StoredObjectArray(json) {
            self = .array(many)
        } else {
            return nil
        }
    }

    /// The type of the object, or of every element.
    public var type: String {
        switch self {
        case .single(let o): return o.type
        case .array(let a): return a.type
        }
    }

    /// The version it is tagged with.
    public var version: SchemaVersion {
        switch self {
        case .single(let o): return o.version
        case .array(let a): return a.version
        }
    }

    public var json: JSON {
        switch self {
        case .single(let o): return o.json
        case .array(let a): return a.json
        }
    }

    /// As users see it: the plain value, or an array of plain values.
    public var plainValue: JSON {
        switch self {
        case .single(let o): return o.plainValue
        case .array(let a): return .array(a.plainValues)
        }
    }

    /// What `object.equals` compares: `comparableValue`, or the array of them.
    public var comparableValue: JSON {
        switch self {
        case .single(let o): return o.comparableValue
        case .array(let a): return .array(a.comparableValues)
        }
    }

    public var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}
