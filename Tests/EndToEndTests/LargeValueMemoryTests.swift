#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LarderJSON
import XCTest

/// A large value costs memory in proportion to its size, a small multiple of
/// it, while it is stored and read back: the peak resident set (VmHWM) of
/// the server stays under three times the value above its idle footprint.
/// A bound on memory, not on time: it holds however busy the machine is.
final class LargeValueMemoryTests: XCTestCase {
    private let valueBytes = 32 << 20
    /// Room for what is not the value (SQLite's page cache, the allocator's
    /// slack); the peaks measured are about 2× the value above idle.
    private let margin = 8 << 20

    func testStoringAndReadingBackALargeValuePeaksUnderThreeTimesItsSize() throws {
        try checkPeaks(member: "value", filler: UInt8(ascii: "v"), textBytes: valueBytes, storedBytes: valueBytes + 2)
    }

    /// Bytes arrive as base64, a third larger than they are; the bound is
    /// three times the bytes, as stored (they are decoded in the request).
    func testStoringAndReadingBackLargeDataPeaksUnderThreeTimesItsSize() throws {
        try checkPeaks(member: "data", filler: UInt8(ascii: "A"), textBytes: valueBytes, storedBytes: valueBytes / 4 * 3)
    }

    private func checkPeaks(member: String, filler: UInt8, textBytes: Int, storedBytes: Int) throws {
        // A build under AddressSanitizer (its server too) keeps freed memory in
        // quarantine: its resident sizes say nothing about Larder's own.
        if dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil {
            throw XCTSkip("resident sizes are the sanitizer's under AddressSanitizer")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("larder-e2e-large-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let writer = try LarderProcess(["--store", dir])
        XCTAssertEqual(writer.request("cache.has", params: ["key": "big"])?["result"]?["found"], false)
        let idle = try XCTUnwrap(peakResidentBytes(of: writer))
        let bound = idle + 3 * storedBytes + margin
        let check = Peaks(bound: bound, idle: idle, storedBytes: storedBytes)
        let readBack = ReadBack(member: member, filler: filler, textBytes: textBytes)

        let set = writer.sendInBackground(prefix: Array(#"{"jsonrpc":"2.0","id":2,"method":"cache.set","params":{"key":"big","\#(member)":""#.utf8),
                                          filler: filler, fillerCount: textBytes, suffix: Array("\"}}\n".utf8))
        let stored = writer.readMessage(timeout: 60)
        XCTAssertEqual(set.wait(), true)
        XCTAssertEqual(stored?["result"]?["size"], .int(storedBytes), "\(stored.map(\.description) ?? "no answer")")
        try assertPeak(of: writer, check, "storing")

        try assertReadBack(readBack, from: writer, id: 3)
        try assertPeak(of: writer, check, "storing and reading back in one process")
        assertCleanExit(writer)

        let reader = try LarderProcess(["--store", dir])
        try assertReadBack(readBack, from: reader, id: 1)
        try assertPeak(of: reader, check, "reading back from the disk tier")
        assertCleanExit(reader)
    }

    private struct Peaks { let bound: Int, idle: Int, storedBytes: Int }
    private struct ReadBack { let member: String, filler: UInt8, textBytes: Int }

    /// Sends a get for the value and checks the answer without parsing it into a tree.
    private func assertReadBack(_ expected: ReadBack, from larder: LarderProcess, id: Int,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(larder.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"cache.get","params":{"key":"big"}}"#))
        let answer = try XCTUnwrap(larder.readLine(timeout: 60), "no answer; stderr: \(larder.stderrText)", file: file, line: line)
        let head = Array(#"{"jsonrpc":"2.0","id":\#(id),"result":{"found":true,"\#(expected.member)":""#.utf8)
        XCTAssertEqual(Array(answer.prefix(head.count)), head, file: file, line: line)
        let value = answer.dropFirst(head.count).prefix(expected.textBytes + 1)
        XCTAssertEqual(value.count, expected.textBytes + 1, file: file, line: line)
        XCTAssertTrue(value.dropLast().allSatisfy { $0 == expected.filler } && value.last == UInt8(ascii: "\""), file: file, line: line)
        XCTAssertTrue(String(decoding: answer.suffix(30), as: UTF8.self).hasSuffix(#""tier":"disk"}}"#),
                      "over an eighth of the memory tier, the value is served from disk", file: file, line: line)
    }

    private func assertPeak(of larder: LarderProcess, _ check: Peaks, _ what: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let peak = try XCTUnwrap(peakResidentBytes(of: larder), file: file, line: line)
        let multiple = Double(peak - check.idle) / Double(check.storedBytes)
        XCTAssertLessThan(peak, check.bound, "\(what): peak \(peak >> 20) MiB, idle \(check.idle >> 20) MiB: "
                          + "\(String(format: "%.2f", multiple))× the value above idle", file: file, line: line)
    }

    /// VmHWM of the process, in bytes.
    private func peakResidentBytes(of larder: LarderProcess) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(larder.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib << 10
    }
}
