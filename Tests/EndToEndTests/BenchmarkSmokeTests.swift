import Foundation
import LarderPostgreSQL
import LarderTestSupport
import XCTest

/// The benchmark runs and prints its table. Its figures are never judged here:
/// speed is reported in README.md, not asserted.
final class BenchmarkSmokeTests: XCTestCase {
    func testAQuickRunPrintsATable() throws {
        let output = try runBench(["--only", "memory,set"])
        XCTAssertTrue(output.contains("ops/s"), output)
        XCTAssertTrue(output.contains("cache.get"), output)
        XCTAssertTrue(output.contains("pipe floor"), output)
    }

    /// Every request to the encrypted caches must succeed (the bench stops
    /// at the first error), and each figure is printed beside the plain
    /// cache's, with the disk-get target checked.
    func testTheEncryptionPartComparesEncryptedWithPlainCaches() throws {
        let output = try runBench(["--only", "encryption", "--keys", "1000"])
        for tier in ["memory-tier hits", "disk hits"] {
            XCTAssertTrue(output.contains("encryption: cache.get \(tier), plain vs encrypted cache"), output)
        }
        XCTAssertTrue(output.contains("encryption: cache.set pipelined"), output)
        for row in ["get 100 B, encrypted, pipelined", "get 10 KiB, encrypted, strict",
                    "set 100 B, to disk, encrypted", "set 100 B, to disk, plain, keys shuffled",
                    "set 10 KiB, memory only, encrypted"] {
            XCTAssertTrue(output.contains(row), "no row \(row):\n\(output)")
        }
        XCTAssertTrue(output.contains("of the plain cache's rate"), output)
        XCTAssertTrue(output.contains("encrypted disk get, time / plain cache's"), output)
        XCTAssertFalse(output.contains("were disk hits") || output.contains("were memory hits"), output)
    }

    /// The floors of migrate.run and entity.upsert: Larder's statements for
    /// them (the entity ones recorded from the core in-process) run again
    /// straight on SQLite, and each series is printed against its floor.
    func testTheObjectsAndEntitiesPartsRunAgainstTheirFloors() throws {
        let output = try runBench(["--only", "objects,entities"])
        for row in ["migrate.run: lookup + update, 1,000 per transaction", "entity.upsert's statements, 1,000 per transaction"] {
            XCTAssertTrue(output.contains(row), "no floor row \(row):\n\(output)")
        }
        XCTAssertTrue(output.contains("of storage floor migrate.run"), output)
        XCTAssertTrue(output.contains("of storage floor entity.upsert"), output)
    }

    /// The caches part loads few caches, then many, in a sidecar: one cache's
    /// gets and sets with many loaded are printed against the same series
    /// with few, and the sidecar's idle CPU beside them.
    func testTheCachesPartComparesManyCachesLoadedWithFew() throws {
        let output = try runBench(["--only", "caches", "--keys", "1000"])
        for row in ["10 caches: get, memory hit, pipelined", "10,000 caches: get, memory hit, pipelined",
                    "10,000 caches: set (overwrite), pipelined", "10,000 caches: CPU while idle", "10,000 caches: open each"] {
            XCTAssertTrue(output.contains(row), "no row \(row):\n\(output)")
        }
        XCTAssertTrue(output.contains("time per request with 10 caches loaded"), output)
        XCTAssertTrue(output.contains("idle CPU with 10,000 caches loaded"), output)
    }

    /// With --store postgresql://…, larder keeps each series' store in a
    /// schema of its own on that server, and every figure is printed against
    /// a floor on the same server; the parts that measure SQLite are skipped,
    /// saying why; every schema the run made is dropped.
    func testAQuickRunOnPostgreSQLIsMeasuredAgainstAPostgreSQLFloor() throws {
        let url = try PostgresTestURL.value
        let output = try runBench(["--store", url, "--keys", "1000", "--only", "memory,disk,set,objects,entities,scale"])
        XCTAssertTrue(output.contains("store:   PostgreSQL"), output)
        XCTAssertTrue(output.contains("storage floor: PostgreSQL"), output)
        for row in ["get 100 B, pipelined", "set 100 B, pipelined (group commit)", "migrate.run {batchSize:1000}", "entity.upsert, records/s",
                    "insert 100 B, 1,000 per transaction", "SELECT by key, 100 B", "migrate.run: lookup + update", "entity.upsert's statements"] {
            XCTAssertTrue(output.contains(row), "no row \(row):\n\(output)")
        }
        for ratio in ["of storage floor insert", "of storage floor SELECT", "of pipe floor", "of storage floor migrate.run", "of storage floor entity.upsert"] {
            XCTAssertTrue(output.contains(ratio), "no ratio \(ratio):\n\(output)")
        }
        XCTAssertTrue(output.contains("scale       SQLite's file"), output)
        XCTAssertTrue(output.contains("/ storage floor insert") && output.contains("≥ 60%"), output)
        let server = try PostgresConnection(url)
        let left = try server.query("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bench%'").int64(0, 0)
        XCTAssertEqual(left, 0, "schemas the bench made are left on the server")
    }

    /// The coherence part runs two sidecars on one store on PostgreSQL in
    /// each mode: under strict, the other sidecar's first read after an
    /// acknowledged write is never stale; under poll it may be.
    func testTheCoherencePartMeasuresEachModeOnPostgreSQL() throws {
        let output = try runBench(["--store", try PostgresTestURL.value, "--only", "coherence"])
        for mode in ["strict", "notify", "poll"] {
            XCTAssertTrue(output.contains("  \(mode): "), "no row for \(mode):\n\(output)")
        }
        let strict = output.split(separator: "\n").first { $0.hasPrefix("  strict: ") }
        XCTAssertEqual(strict?.contains("stale 0 of 200 times"), true, output)
    }

    /// Runs larder-bench --quick with few operations against the larder under test; returns its table.
    private func runBench(_ arguments: [String]) throws -> String {
        let larder = URL(fileURLWithPath: LarderProcess.executablePath)
        let bench = larder.deletingLastPathComponent().appendingPathComponent("larder-bench")
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            try TestRefusal.refuse("larder-bench is not built next to \(larder.path)")
        }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["--quick", "--ops", "500", "--reps", "1", "--larder", larder.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        return output
    }
}
