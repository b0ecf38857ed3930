import Foundation
import XCTest

/// The benchmark runs and prints its table. Its figures are never judged here:
/// speed is reported in README.md, not asserted.
final class BenchmarkSmokeTests: XCTestCase {
    func testAQuickRunPrintsATable() throws {
        let larder = URL(fileURLWithPath: LarderProcess.executablePath)
        let bench = larder.deletingLastPathComponent().appendingPathComponent("larder-bench")
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw XCTSkip("larder-bench is not built next to \(larder.path)")
        }
        let process = Process()
        process.executableURL = bench
        process.arguments = ["--quick", "--ops", "500", "--reps", "1", "--only", "memory,set", "--larder", larder.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("ops/s"), output)
        XCTAssertTrue(output.contains("cache.get"), output)
        XCTAssertTrue(output.contains("pipe floor"), output)
    }
}
