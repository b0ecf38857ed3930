import Foundation
import LarderJSON
import LarderTestSupport
import XCTest

/// Four processes moving money between accounts with `cache.transaction`
/// (SPEC 6.15): each reads two balances, then in one transaction compares
/// both revisions, sets both balances and counts the transfer, retrying when
/// a comparison fails. Whatever the interleaving, no money is made or lost,
/// no balance goes below zero, every account ends at its opening balance plus
/// the acknowledged transfers touching it, and each process's count in the
/// store is the number of transfers it saw succeed. On a store directory here;
/// on PostgreSQL, each process a sidecar, in `PostgreSQLBankTransferTests`.
class BankTransferTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "larder-bank-transfer-" + UUID().uuidString
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func storeArguments() throws -> [String] { ["--store", directory] }

    /// Transfers each process makes.
    var transfers: Int { 100 }
    private let accounts = (0..<8).map { "account:\($0)" }
    private let opening = 100

    private func request(_ id: Int, _ method: String, _ params: JSON) -> String {
        JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).description
    }

    func testTransfersBetweenAccountsKeepTheTotal() throws {
        var random = SeededRandom(seed: 3141)
        let processes = try (0..<4).map { _ in try LarderProcess(try storeArguments()) }
        let entries = JSON.array(accounts.map { ["key": .string($0), "value": .int(opening)] })
        XCTAssertEqual(processes[0].request("cache.setMany", params: ["entries": entries])?["result"]?["stored"], .int(accounts.count))
        var expected = Dictionary(uniqueKeysWithValues: accounts.map { ($0, opening) })
        var succeeded = [Int](repeating: 0, count: processes.count)
        var retries = 0, id = 10
        while succeeded.contains(where: { $0 < transfers }) {
            // Every process still transferring reads, then every one sends its
            // transaction before any answer is read: their transactions race.
            let active = processes.indices.filter { succeeded[$0] < transfers }
            var planned: [Int: (from: String, to: String, amount: Int)] = [:]
            for p in active {
                let pair = random.distinct(2, of: accounts)
                var balance: [String: (value: Int, revision: JSON)] = [:]
                for account in pair {
                    id += 1
                    let found = try XCTUnwrap(processes[p].request("cache.get", params: ["key": .string(account)], id: .int(id))?["result"])
                    balance[account] = (Int(try XCTUnwrap(found["value"]?.numberValue?.double)), try XCTUnwrap(found["revision"]))
                }
                let (from, to) = (pair[0], pair[1])
                let amount = random.int(1...60)
                // A transfer that would overdraw is not made.
                guard balance[from]!.value >= amount else { continue }
                planned[p] = (from, to, amount)
                id += 1
                let transaction: JSON = [
                    "compare": [["key": .string(from), "revision": balance[from]!.revision], ["key": .string(to), "revision": balance[to]!.revision]],
                    "then": [["op": "set", "key": .string(from), "value": .int(balance[from]!.value - amount)],
                             ["op": "set", "key": .string(to), "value": .int(balance[to]!.value + amount)],
                             ["op": "increment", "key": .string("transfers:\(p)")]],
                ]
                XCTAssertTrue(processes[p].send(request(id, "cache.transaction", transaction)))
            }
            for p in active {
                guard let (from, to, amount) = planned[p] else { continue }
                let result = try XCTUnwrap(processes[p].readMessage(timeout: 30)?["result"])
                if result["succeeded"] == true {
                    succeeded[p] += 1
                    expected[from]! -= amount
                    expected[to]! += amount
                    XCTAssertEqual(result["results"]?.arrayValue?.last?["value"], .int(succeeded[p]), "the count moved with the transfer")
                } else {
                    XCTAssertNotNil(result["failed"], "\(result)")
                    retries += 1
                }
            }
        }
        var total = 0
        for account in accounts {
            let balance = Int(try XCTUnwrap(processes[0].request("cache.get", params: ["key": .string(account)], id: 1)?["result"]?["value"]?.numberValue?.double))
            XCTAssertGreaterThanOrEqual(balance, 0, account)
            XCTAssertEqual(balance, expected[account], "\(account): its opening balance and the transfers acknowledged")
            total += balance
        }
        XCTAssertEqual(total, opening * accounts.count, "no money made or lost")
        for p in processes.indices {
            XCTAssertEqual(processes[0].request("cache.get", params: ["key": .string("transfers:\(p)")], id: 2)?["result"]?["value"], .int(succeeded[p]))
        }
        XCTAssertGreaterThan(retries, 0, "the processes did race")
        for p in processes { p.closeStdin(); XCTAssertEqual(p.waitForExit(), 0) }
    }
}

final class PostgreSQLBankTransferTests: BankTransferTests {
    private var store: PostgresTestStore?

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try PostgresTestStore("bank_transfer")
    }

    override func tearDown() {
        store?.drop()
        super.tearDown()
    }

    override func storeArguments() throws -> [String] { try XCTUnwrap(store).arguments }

    override var transfers: Int { 40 }

    // Listed again: XCTest on Linux finds only the test methods a class declares itself.
    override func testTransfersBetweenAccountsKeepTheTotal() throws { try super.testTransfersBetweenAccountsKeepTheTotal() }
}
