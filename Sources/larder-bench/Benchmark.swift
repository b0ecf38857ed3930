#if canImport(Glibc)
import Glibc
#endif
import LarderCore
import LarderPostgreSQL
import LarderSystem
import LarderStorage
import LarderSQLite

/// Runs every part of the benchmark and fills the report.
final class Benchmark {
    let options: Options
    let plan: Plan
    let report: Report
    let scratch: ScratchDirectory
    let selfPath: String
    let larderPath: String
    /// The server larder keeps its stores on, with `--store postgresql://…`;
    /// nil: a store directory per series.
    let postgres: PostgresServer?
    var floors = Floors()
    /// Stored values by size: JSON strings of exactly that many bytes.
    let values: [Int: [UInt8]]
    /// VmRSS of larder after each scale tier's series, in KiB, smallest store first.
    var storeRSS: [(entries: Int, kib: Int)] = []
    /// Peak RSS above idle while a large value is stored and read back, as multiples of its size.
    var largeValueMultiples: [Double] = []

    // Key spaces (16-byte keys).
    let readKeys = KeySpace("rd-")
    let warmKeys = KeySpace("wu-")
    let setKeys = KeySpace("st-")
    let mixedKeys = KeySpace("mx-")
    let scaleKeys = KeySpace("sc-")

    init(options: Options) {
        self.options = options
        plan = options.plan
        report = Report(machine: Machine.describe(), plan: plan)
        selfPath = Self.executablePath()
        if let explicit = options.larderPath {
            larderPath = explicit
        } else {
            let dir = selfPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            larderPath = dir + "/larder"
        }
        guard access(larderPath, X_OK) == 0 else {
            Progress.fail("no larder executable at \(larderPath): build it with `swift build -c release` (it is built next to larder-bench), or pass --larder PATH", code: 2)
        }
        postgres = options.postgresURL.map { PostgresServer(url: $0) }
        var v: [Int: [UInt8]] = [:]
        for size in plan.valueSizes { v[size] = Value.json(size: size) }
        values = v
        scratch = ScratchDirectory.create()
    }

    func run() -> Report {
        let start = MonotonicClock.nanoseconds()
        report.larderPath = larderPath
        report.pinStrict = options.pinStrict
        report.store = postgres.map {
            "\($0.description) at \(PostgresStore.redacted($0.url)), a fresh schema per series and repetition, --pg-coherence \(options.pgCoherence)"
        }
            ?? "SQLite \(report.machine.sqlite), a fresh directory per series and repetition"
        let m = report.machine
        Progress.note("larder-bench \(plan.mode): \(m.processors) × \(m.cpuModel), \(m.kernel), SQLite \(m.sqlite); larder \(larderPath); scratch \(scratch.path)")
        Progress.note("store: \(report.store)")
        if let postgres, !postgres.isDurable {
            Progress.note("warning: the server does not wait for the disk at commit: writes are not durable, and faster than on a durable server")
        }
        func part(_ name: String, _ body: () -> Void) {
            guard name == "floors" || options.wants(name) else { return }
            if postgres == nil, let reason = Options.partsOnlyOnPostgreSQL[name] {
                Progress.note("  [\(name): only on PostgreSQL: \(reason)]")
                return
            }
            if postgres != nil, let reason = Options.partsNotOnPostgreSQL[name] {
                report.skipped.append((name, reason))
                Progress.note("  [\(name): skipped on PostgreSQL: \(reason)]")
                return
            }
            let t0 = MonotonicClock.nanoseconds()
            body()
            Progress.note("  [\(name): \(Format.fixed(Double(MonotonicClock.nanoseconds() - t0) / 1e9, 1)) s]")
        }
        Progress.note("load average at start: \(Self.loadAverage())")
        part("floors") {
            measurePipeFloor()
            measureStorageFloor()
        }
        part("memory") { measureGets(tier: "memory") }
        part("disk") { measureGets(tier: "disk") }
        part("fetch") { measureFetches() }
        part("set") { measureSets() }
        part("encryption") { measureEncryption() }
        part("mixed") { measureMixed() }
        part("scale") { measureScale() }
        part("objects") { measureObjects() }
        part("entities") { measureEntities() }
        part("start") { measureColdStart() }
        part("coherence") { measureCoherence() }
        part("caches") { measureManyCaches() }
        part("coordination") { measureCoordination() }
        report.loadAverage = Self.loadAverage()
        checkTargets()
        report.seconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
        scratch.removeAll()
        Progress.note("done in \(Format.fixed(report.seconds, 1)) s")
        return report
    }

    /// A fresh store named `name` on the run's engine: a directory under the
    /// scratch directory, or a schema on the PostgreSQL server.
    func freshStore(_ name: String) -> StoreLocation {
        postgres.map { .schema(url: $0.url, name: $0.freshSchema(name), coherence: options.pgCoherence) } ?? .directory(scratch.child(name))
    }

    func remove(_ store: StoreLocation) {
        switch store {
        case .directory(let path): ScratchDirectory.remove(path)
        case .schema(_, let name, _): postgres?.drop(schema: name)
        case .memory: break
        }
    }

    /// Spawns larder on a fresh store.
    func session(_ name: String, capabilities: String = "{}", encryptionKey: String? = nil) -> LarderSession {
        let s = LarderSession(larder: larderPath, store: freshStore(name), capabilities: capabilities, encryptionKey: encryptionKey)
        report.larderVersion = s.serverVersion
        return s
    }

    /// Closes the session and deletes its store.
    func discard(_ s: LarderSession) {
        s.close()
        remove(s.store)
    }

    /// A storage floor on a fresh store of the run's engine.
    func storageFloor(_ name: String) -> any StorageFloor {
        storageFloor(on: freshStore("floor-" + name), madeByCore: false)
    }

    /// A storage floor on `store`; `madeByCore`: Larder's core made its tables (`coreStore(on:)`).
    func storageFloor(on store: StoreLocation, madeByCore: Bool) -> any StorageFloor {
        switch store {
        case .directory(let path): SQLiteFloor(directory: path, makeTables: !madeByCore)
        case .schema(_, let name, _): PostgresFloor(server: postgres!, schema: name, perRoundTrip: plan.window)
        case .memory: Progress.fail("a memory-only store has no storage floor")
        }
    }

    /// Larder's core in-process on `store`, making its tables there as larder
    /// does, with every statement it runs passing through the recorder.
    func coreStore(on store: StoreLocation) -> (store: Store, recorder: StatementRecorder) {
        do {
            let connection: any SQLConnection
            switch store {
            case .directory(let path):
                // Made, with its tables, by the core as larder makes it; then
                // reopened on a connection the recorder can stand in front of.
                try Store(directory: path).close()
                connection = try SQLiteDatabase(path: path + "/" + Store.databaseFileName)
            case .schema(_, let name, _):
                let pg = postgres!.connect(schema: name)
                try StoreLayout.bringUpToDate(PostgresLayout(connection: pg, schema: name))
                connection = PostgresSQLConnection(pg, location: name)
            case .memory:
                Progress.fail("Larder's core runs in-process on a store directory or a schema, not in memory only")
            }
            let recorder = StatementRecorder(connection)
            return (try Store(connection: recorder, otherWriters: nil), recorder)
        } catch {
            Progress.fail("cannot open Larder's core on \(store): \(error)")
        }
    }

    /// Strict series: `reps` runs of `batch`, one request at a time.
    func strictSeries(_ driver: Driver, _ batch: RequestBatch, reps: Int, what: String, pid: pid_t) -> (Spread, Latency) {
        var rates: [Double] = []
        var samples: [[UInt64]] = []
        var latencies: [UInt64] = []
        pinned([pid]) {
            for _ in 0..<reps {
                let ns = driver.strict(batch, latencies: &latencies)
                rates.append(Statistics.rate(batch.count, ns))
                samples.append(latencies)
            }
        }
        driver.requireNoProblems(what)
        return (Spread(rates), Latency(perRepetition: samples))
    }

    /// ", 20,000 ops" when a series runs a different count from its kind's usual one.
    func opsTag(_ n: Int, _ usual: Int) -> String { n == usual ? "" : ", \(Format.count(n)) ops" }

    /// The pipe floor for answers of a get of `size`-byte values.
    func pipeFloorSize(_ valueSize: Int) -> Int { valueSize >= 1024 ? valueSize : 0 }

    func pipeRateRatio(_ rate: Spread, valueSize: Int) -> Report.Ratio? {
        let size = pipeFloorSize(valueSize)
        guard let f = floors.pipeRate[size] else { return nil }
        return Report.Ratio(kind: .share, value: rate.median / f.median, floor: size == 0 ? "pipe floor" : "pipe floor (10 KiB answers)")
    }

    func roundTripRatio(_ l: Latency, valueSize: Int) -> Report.Ratio? {
        let size = pipeFloorSize(valueSize)
        guard let f = floors.pipeRoundTrip[size] else { return nil }
        return Report.Ratio(kind: .multiple, value: l.p50.median / f.p50.median, floor: size == 0 ? "pipe round trip p50" : "pipe round trip p50 (10 KiB answers)")
    }

    /// The 1, 5 and 15 minute load averages: other work on the machine skews every figure.
    static func loadAverage() -> String {
        guard let text = TextFile.read("/proc/loadavg") else { return "?" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    private static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { Progress.fail("cannot read /proc/self/exe") }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
