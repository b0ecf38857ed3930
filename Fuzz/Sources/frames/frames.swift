#if canImport(Glibc)
import Glibc
#endif
import FuzzDriver
import LarderJSON
@testable import LarderRPC

// Property: whatever garbage a client sends, of two well-formed messages
// that arrive after it, each in a read of its own, the second is answered
// with its own id, and so is the first unless the garbage's last line left a
// JSON value open where an element or a member's value may come: in line
// framing that line starts a message spread over lines, whose next line the
// first message is (SPEC 1.1), skipped with it and not run. Real LSP
// clients write each message on its own and wait for its answer, so
// recovery must not depend on the next message arriving in the same read as
// the garbage.
//
// Input: byte 0 picks the framing (low bit: lines or Content-Length),
// bytes 1 and 2 seed where the garbage is cut into reads, and the rest is
// the garbage. The connection reads a SOCK_SEQPACKET socket, whose every
// read(2) returns exactly one write, so each piece arrives in a read of its
// own: a leading message (which fixes the framing, as a client's first
// request does), the garbage in pieces, then the two probes.
//
// In line framing the garbage ends with LF: without one the probe would
// be the end of the garbage's last line, one line as the framing defines it.
// In Content-Length framing the garbage is anything at all, declared
// lengths included: a body is cut short where a Content-Length line begins.

/// Answers every request with its params; ignores the rest.
final class Echo: MessageHandler {
    func handle(request method: String, params: JSON?, reply: Reply) { reply.succeed(params ?? .null) }
    func handle(notification method: String, params: JSON?) {}
    func willFlush() {}
    func connectionClosed() {}
}

let maxMessageBytes = 1024
let lead = #"{"jsonrpc":"2.0","id":"lead","method":"echo"}"#
let probes = [
    (#"{"jsonrpc":"2.0","id":"probe-1","method":"echo","params":{"read":1}}"#,
     #"{"jsonrpc":"2.0","id":"probe-1","result":{"read":1}}"#),
    (#"{"jsonrpc":"2.0","id":"probe-2","method":"echo","params":{"read":2}}"#,
     #"{"jsonrpc":"2.0","id":"probe-2","result":{"read":2}}"#),
]

func framed(_ body: String, _ framing: Framing) -> [UInt8] {
    switch framing {
    case .lines: return Array((body + "\n").utf8)
    case .contentLength: return Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
    }
}

/// The garbage cut into pieces at points drawn from `seed`: single bytes,
/// a few bytes and whole kilobytes, at most 32 pieces.
func pieces(of garbage: [UInt8], seed: UInt64) -> [[UInt8]] {
    var state = seed
    var result: [[UInt8]] = []
    var at = 0
    while at < garbage.count {
        // SplitMix64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let scale = 1 << Int(z % 12)
        var size = 1 + Int((z >> 8) % UInt64(scale))
        if result.count == 31 { size = garbage.count - at }
        size = min(size, garbage.count - at)
        result.append(Array(garbage[at..<(at + size)]))
        at += size
    }
    return result
}

/// The messages in `output`, in order; nil if the output is not framed as `framing` says.
func messages(in output: [UInt8], _ framing: Framing) -> [ArraySlice<UInt8>]? {
    switch framing {
    case .lines:
        guard output.last == 0x0A else { return output.isEmpty ? [] : nil }
        return output.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
    case .contentLength:
        var result: [ArraySlice<UInt8>] = []
        var rest = output[...]
        let prefix = Array("Content-Length: ".utf8)
        while !rest.isEmpty {
            guard rest.starts(with: prefix) else { return nil }
            rest = rest.dropFirst(prefix.count)
            let digits = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard let length = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard rest.starts(with: [0x0D, 0x0A, 0x0D, 0x0A]), rest.count - 4 >= length else { return nil }
            rest = rest.dropFirst(4)
            result.append(rest.prefix(length))
            rest = rest.dropFirst(length)
        }
        return result
    }
}

/// Serves `reads` through a connection, each arriving in a read of its own; returns what it wrote.
func serve(_ reads: [[UInt8]]) -> [UInt8] {
    var sockets: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &sockets) == 0 else { fatalError("frames: socketpair failed") }
    // Non-blocking: a full socket buffer must stop the run, not hang it.
    _ = fcntl(sockets[1], F_SETFL, O_NONBLOCK)
    for r in reads {
        guard r.withUnsafeBytes({ write(sockets[1], $0.baseAddress, $0.count) }) == r.count else {
            fatalError("frames: could not queue \(reads.count) reads: \(String(cString: strerror(errno)))")
        }
    }
    close(sockets[1])
    // An unlinked file: the output may outgrow any pipe, and the connection writes before it ends.
    guard let file = tmpfile() else { fatalError("frames: tmpfile failed") }
    defer { fclose(file) }
    let connection = Connection(input: sockets[0], output: fileno(file), maxMessageBytes: maxMessageBytes)
    let handler = Echo()
    connection.handler = handler
    _ = connection.run()
    close(sockets[0])
    let size = Int(lseek(fileno(file), 0, SEEK_END))
    var output = [UInt8](repeating: 0, count: size)
    _ = output.withUnsafeMutableBytes { pread(fileno(file), $0.baseAddress, size, 0) }
    return output
}

/// Bytes in quotes, anything but printable ASCII escaped, so a failing input reads exactly.
func show(_ bytes: some Collection<UInt8>) -> String {
    var text = "\""
    for b in bytes {
        switch b {
        case 0x0A: text += "\\n"
        case 0x0D: text += "\\r"
        case 0x22, 0x5C: text += "\\" + String(UnicodeScalar(b))
        case 0x20..<0x7F: text += String(UnicodeScalar(b))
        default: text += "\\x" + (b < 0x10 ? "0" : "") + String(b, radix: 16)
        }
    }
    return text + "\""
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    Log.level = .error
    guard size >= 3 else { return 0 }
    let input = UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: size)
    let framing: Framing = input[0] & 1 == 0 ? .lines : .contentLength
    let seed = UInt64(input[1]) << 8 | UInt64(input[2])
    var garbage = Array(input[3...])
    if framing == .lines { garbage.append(0x0A) }
    let reads = [framed(lead, framing)] + pieces(of: garbage, seed: seed) + probes.map { framed($0.0, framing) }
    let output = serve(reads)
    guard let answers = messages(in: output, framing) else {
        fatalError("frames: the output is not framed as \(framing.rawValue): \(show(output))")
    }
    for answer in answers where (try? JSONParser.parse(answer)) == nil {
        fatalError("frames: an answer is not JSON: \(show(answer))")
    }
    let texts = answers.map { String(decoding: $0, as: UTF8.self) }
    let firstProbeAnswered = framing == .contentLength || texts.dropLast().last == probes[0].1
    let expected = [#"{"jsonrpc":"2.0","id":"lead","result":null}"#] + (firstProbeAnswered ? probes : [probes[1]]).map(\.1)
    let got = texts.count >= expected.count ? [texts[0]] + texts.suffix(expected.count - 1) : texts[...]
    guard Array(got) == expected, texts.filter({ $0 == probes[0].1 }).count <= 1 else {
        fatalError("""
            frames: after garbage, a well-formed message in a read of its own was not answered with its own id \
            (\(framing.rawValue) framing)
            garbage as sent: \(show(garbage))
            answers: \(answers.map { show($0) }.joined(separator: "\n         "))
            """)
    }
    return 0
}

@main
enum FramesTarget {
    static func main() {
        exit(fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzFrames))
    }
}
