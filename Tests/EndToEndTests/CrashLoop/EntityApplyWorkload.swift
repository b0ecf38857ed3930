import LarderTestSupport
import LarderJSON

/// Pipelined batches of several `entity.stage` calls, authors and books
/// linked to them, each followed by `entity.apply`: every batch is stored
/// entirely or not at all, links included.
final class EntityApplyWorkload: CrashWorkload {
    let method = "entity.apply"
    private let library = Library()
    var ledgers: [WriteLedger] { [library.ledger] }
    private var sequence = 0

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        library.define(larder)
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        var known = Array(library.durableAuthors).sorted()
        for _ in 0..<random.int(20...100) {
            sequence += 1
            let authors = random.distinct(random.int(1...3), of: Library.authorIDs)
            let candidates = authors + known
            let books = random.distinct(random.int(2...6), of: Library.bookIDs).map {
                Library.book($0, seq: sequence, author: candidates.randomElement(using: &random)!)
            }
            let authorWrites = authors.map { Library.author($0, seq: sequence) }
            // Books in one or two calls, in any order with their authors: the
            // apply resolves references within the whole staged batch.
            let split = random.int(1...books.count)
            var stages = [("Author", authorWrites), ("Book", Array(books[..<split]))]
            if split < books.count { stages.append(("Book", Array(books[split...]))) }
            for (entity, writes) in stages.shuffled(using: &random) {
                burst.request("entity.stage", ["entity": .string(entity), "records": .array(writes.map(\.value))])
            }
            burst.request(method, [:], writes: (library.ledger, authorWrites + books))
            known = Array(Set(known).union(authors)).sorted()
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
