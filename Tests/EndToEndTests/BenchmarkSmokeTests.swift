import Foundation
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

    /// Runs larder-bench --quick with few operations against the larder under test; returns its table.
    private func runBench(_ arguments: [String]) throws -> String {
        let larder = URL(fileURLWithPath: LarderProcess.executablePath)
        let bench = larder.deletingLastPathComponent().appendingPathComponent("larder-bench")
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("larder-bench is not built next to \(larder.path)")
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
