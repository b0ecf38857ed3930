import LarderTestSupport
import LarderJSON

/// Pipelined transfers between eight accounts as `cache.transaction`s, each
/// comparing both balances as they stand, setting both and counting itself in
/// a counter, between `cache.increment`s of another counter. A transaction is
/// one batch: both balances and the count, or none of them. Every value a
/// write leaves is unique to it (a balance carries the transfer's number; a
/// counter only grows), so the ledger tells which write a key shows; the
/// total of the balances never changes and none is below zero.
final class CacheTransactionWorkload: CrashWorkload {
    let method = "cache.transaction"
    private let ledger = WriteLedger()
    var ledgers: [WriteLedger] { [ledger] }
    private static let cache = "crash"
    private static let accounts = (0..<8).map { "account:\($0)" }
    private static let opening = 1_000
    private var sequence = 0

    private static func account(_ balance: Int, _ transfer: Int) -> JSON { ["balance": .int(balance), "transfer": .int(transfer)] }

    func prepare(_ larder: LarderProcess, round: Int, random: inout SeededRandom) -> String? {
        guard round == 0 else { return nil }
        let entries = Self.accounts.map { JSON.object(["key": .string($0), "value": Self.account(Self.opening, 0)]) }
        if let problem = larder.requestAll([("cache.setMany", ["cache": .string(Self.cache), "entries": .array(entries)])]) { return problem }
        for a in Self.accounts { ledger.recordDurable(a, Self.account(Self.opening, 0)) }
        return nil
    }

    func burst(round: Int, random: inout SeededRandom) -> Burst {
        let burst = Burst()
        // What each key holds once every request before the next one is applied.
        var current = ledger.durable
        func count(_ key: String) -> Int { current[key]?.numberValue?.int ?? 0 }
        for _ in 0..<random.int(50...400) {
            if random.chance(0.3) {
                let by = random.int(1...9)
                let sum = JSON.int(count("hits") + by)
                current["hits"] = sum
                burst.request("cache.increment", ["cache": .string(Self.cache), "key": "hits", "by": .int(by)],
                              writes: (ledger, [.init(key: "hits", value: sum)]))
                continue
            }
            let pair = random.distinct(2, of: Self.accounts)
            let (from, to) = (pair[0], pair[1])
            let (fromBalance, toBalance) = (current[from]!["balance"]!.numberValue!.int!, current[to]!["balance"]!.numberValue!.int!)
            let amount = random.int(0...min(fromBalance, 200))
            sequence += 1
            let (newFrom, newTo) = (Self.account(fromBalance - amount, sequence), Self.account(toBalance + amount, sequence))
            let transfers = JSON.int(count("transfers") + 1)
            let cache = JSON.string(Self.cache)
            burst.request(method, [
                "compare": [["cache": cache, "key": .string(from), "value": current[from]!], ["cache": cache, "key": .string(to), "value": current[to]!]],
                "then": [["op": "set", "cache": cache, "key": .string(from), "value": newFrom],
                         ["op": "set", "cache": cache, "key": .string(to), "value": newTo],
                         ["op": "increment", "cache": cache, "key": "transfers"]],
            ], writes: (ledger, [.init(key: from, value: newFrom), .init(key: to, value: newTo), .init(key: "transfers", value: transfers)]))
            (current[from], current[to], current["transfers"]) = (newFrom, newTo, transfers)
        }
        return burst
    }

    func read(_ ledger: WriteLedger, from larder: LarderProcess) -> [String: JSON]? {
        larder.entries(cache: Self.cache, keys: ledger.keys)?.compactMapValues { $0["value"] }
    }

    func consistencyProblems(in observed: [String: JSON], of ledger: WriteLedger) -> [String] {
        // Before the first round's accounts are opened there is nothing to add up.
        guard Self.accounts.contains(where: { observed[$0] != nil }) else { return [] }
        let balances = Self.accounts.map { observed[$0]?["balance"]?.numberValue?.int ?? -1 }
        var problems: [String] = []
        if balances.reduce(0, +) != Self.opening * Self.accounts.count {
            problems.append("the accounts hold \(balances.reduce(0, +)) in all, not \(Self.opening * Self.accounts.count): \(balances)")
        }
        if balances.contains(where: { $0 < 0 }) { problems.append("an account is below zero or missing: \(balances)") }
        return problems
    }
}
