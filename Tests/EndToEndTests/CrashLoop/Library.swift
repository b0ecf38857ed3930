import LarderJSON

/// The entity model both entity crash loops write — authors and their books,
/// a to-one relationship (`Book.author`) and its to-many inverse
/// (`Author.books`) — with its ledger, keyed `Entity/id`.
final class Library {
    let ledger = WriteLedger()
    static let authorIDs = (0..<40).map { "a" + padded($0) }
    static let bookIDs = (0..<150).map { "b" + padded($0) }
    /// Each author's `books` as last read, kept apart from the ledger's
    /// records: the server derives them from the books' `author`.
    private var booksByAuthor: [String: JSON] = [:]

    private static func padded(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    static let definition: JSON = [
        "model": "Library",
        "entities": [
            ["name": "Author", "attributes": ["id": "string", "name": "string", "seq": "integer"],
             "relationships": [["name": "books", "destination": "Book", "toMany": true, "inverse": "author"]]],
            ["name": "Book", "attributes": ["id": "string", "title": "string", "seq": "integer"],
             "relationships": [["name": "author", "destination": "Author", "inverse": "books"]]],
        ],
    ]

    /// Defines the model; defining it again unchanged changes nothing, so every round may.
    func define(_ larder: LarderProcess) -> String? {
        larder.requestAll([("entity.define", Self.definition)])
    }

    static func author(_ id: String, seq: Int) -> WriteLedger.Write {
        .init(key: "Author/" + id, value: ["id": .string(id), "name": .string("author \(id), write \(seq)"), "seq": .int(seq)])
    }

    static func book(_ id: String, seq: Int, author: String) -> WriteLedger.Write {
        .init(key: "Book/" + id, value: ["id": .string(id), "title": .string("book \(id), write \(seq)"), "seq": .int(seq), "author": .string(author)])
    }

    /// The authors the store holds after the last check: books may name them
    /// in any batch, as well as authors sent earlier in the same round.
    var durableAuthors: Set<String> {
        Set(ledger.durable.keys.filter { $0.hasPrefix("Author/") }.map { String($0.dropFirst("Author/".count)) })
    }

    /// The records under the ledger's keys, as `entity.getMany` answers them
    /// (authors without their derived `books`, which are kept for `consistencyProblems`).
    func read(from larder: LarderProcess) -> [String: JSON]? {
        var observed: [String: JSON] = [:]
        booksByAuthor = [:]
        for entity in ["Author", "Book"] {
            let prefix = entity + "/"
            let ids = ledger.keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            guard let records = larder.records(entity: entity, ids: ids) else { return nil }
            for (id, record) in records {
                guard var fields = record.objectValue else { return nil }
                if entity == "Author" {
                    booksByAuthor[id] = fields["books"] ?? .null
                    fields.members.removeAll { $0.key == "books" }
                }
                observed[prefix + id] = .object(fields)
            }
        }
        return observed
    }

    /// Every book's author exists, and every author's `books` are exactly the books naming it.
    func consistencyProblems(in observed: [String: JSON]) -> [String] {
        var problems: [String] = []
        var expected: [String: [String]] = [:]
        for (key, record) in observed where key.hasPrefix("Book/") {
            guard let author = record["author"]?.stringValue else { continue }
            if observed["Author/" + author] == nil { problems.append("\(key) names author \(author), which the store does not hold") }
            expected[author, default: []].append(String(key.dropFirst("Book/".count)))
        }
        for (id, books) in booksByAuthor {
            let names = (expected[id] ?? []).sorted().map { JSON.string($0) }
            if books != .array(names) { problems.append("Author/\(id) lists books \(books), but the books naming it are \(JSON.array(names))") }
        }
        return problems
    }
}
