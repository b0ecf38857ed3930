import LarderTestSupport
import LarderJSON

/// Pipelined `entity.upsert` of several authors, or of several books linked
/// to authors upserted before: each call is stored entirely or not at all.
final class EntityUpsertWorkload: CrashWorkload {
    let method = "entity.upsert"
    private let library = Library()
    var ledgers: [WriteLedger] { [library.ledger] }
    private var sequence = 0

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        library.define(larder)
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        var known = Array(library.durableAuthors).sorted()
        for _ in 0..<random.int(40...160) {
            sequence += 1
            let writes: [WriteLedger.Write]
            let entity: String
            if known.isEmpty || random.chance(0.35) {
                entity = "Author"
                let authors = random.distinct(random.int(1...4), of: Library.authorIDs)
                writes = authors.map { Library.author($0, seq: sequence) }
                known = Array(Set(known).union(authors)).sorted()
            } else {
                entity = "Book"
                writes = random.distinct(random.int(2...6), of: Library.bookIDs).map {
                    Library.book($0, seq: sequence, author: known.randomElement(using: &random)!)
                }
            }
            burst.request(method, ["entity": .string(entity), "records": .array(writes.map(\.value))], writes: (library.ledger, writes))
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        library.read(from: larder)
    }

    func consistencyProblems(in observed: [String: JSON], of ledger: WriteLedger) -> [String] {
        library.consistencyProblems(in: observed)
    }
}
