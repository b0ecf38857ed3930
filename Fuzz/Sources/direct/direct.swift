#if canImport(Glibc)
import Glibc
#endif
import FuzzDriver
import LarderCore
import LarderJSON
@testable import LarderRPC
import LarderServer

// Properties, for any input served as a session (lines, or Content-Length
// framing when it starts that way):
// 1. Every message the fast path reads in place (`RequestView`) is, to the
//    JSON parser, the same request: the same four members, version, id,
//    method, and the same `params` members and values.
// 2. Served with direct answers on and with them off, on a fresh in-memory
//    store with a fixed clock, the session gets byte-identical output.
// The input is the session itself, so a failing input replays as it is
// (`larder --memory --clock 2026-01-01T00:00:00Z --enable-test-methods`; here
// timers wait for the end of the input, so a retry or a timeout comes last).

/// The `params` members the methods answered directly read; a view must
/// agree with the parser on each (and on how many members there are).
let memberNames: [StaticString] = ["cache", "group", "key", "value", "ttl", "data"]

func show(_ bytes: some Collection<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self).debugDescription
}

func disagree(_ what: String, _ body: UnsafeBufferPointer<UInt8>) -> Never {
    fatalError("direct: the request view and the JSON parser disagree on \(what) in \(show(body))")
}

/// Property 1 for one message body.
func checkView(of body: UnsafeBufferPointer<UInt8>, reader: RequestReader) {
    guard let view = reader.read(body) else { return }
    guard case .object(let request)? = try? JSONParser.parse(body) else { disagree("whether it is a JSON object", body) }
    guard request.count == 4, Set(request.keys) == ["jsonrpc", "id", "method", "params"] else { disagree("its members", body) }
    guard request["jsonrpc"] == "2.0" else { disagree("jsonrpc", body) }
    guard let id = request["id"], RequestID(id) == view.id, id.encoded.elementsEqual(view.idText) else { disagree("the id", body) }
    guard request["method"]?.stringValue.map({ $0.utf8.elementsEqual(view.method) }) == true else { disagree("the method", body) }
    guard case .object(let params)? = request["params"], Set(params.keys).count == params.count,
          params.count == view.params.count else { disagree("how many params there are", body) }
    for name in memberNames {
        let expected = params["\(name)"]
        switch view.params[name] {
        case .absent:
            guard expected == nil else { disagree("params.\(name)", body) }
        case .plainString(let bytes):
            guard expected?.stringValue.map({ $0.utf8.elementsEqual(bytes) }) == true else { disagree("params.\(name)", body) }
        case .other(let text):
            guard let expected, let value = try? JSONParser.parse(text), value.encoded == expected.encoded else {
                disagree("params.\(name)", body)
            }
        }
    }
}

/// The message bodies of `input`, split as a connection splits them.
func eachBody(of input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    let decoder = FrameDecoder(maxMessageBytes: ServerOptions(storePath: nil).maxMessageBytes)
    decoder.append(input)
    while let event = decoder.next() {
        if case .message(let range) = event { body(decoder.bytes(range)) }
    }
    if case .message(let range)? = decoder.endOfInput() { body(decoder.bytes(range)) }
}

/// What the server writes for `input` on a fresh in-memory store.
func serve(_ input: UnsafeBufferPointer<UInt8>, directAnswers: Bool) -> [UInt8] {
    // Unlinked files: the output may outgrow any pipe, and the server writes before it ends.
    guard let inFile = tmpfile(), let outFile = tmpfile() else { fatalError("direct: tmpfile failed") }
    defer { fclose(inFile); fclose(outFile) }
    guard write(fileno(inFile), input.baseAddress, input.count) == input.count else { fatalError("direct: writing the input failed") }
    lseek(fileno(inFile), 0, SEEK_SET)
    var options = ServerOptions(storePath: nil)
    options.directAnswers = directAnswers
    // debug.advanceClock lets a session reach expired entries.
    options.enableTestMethods = true
    let store: Store
    do {
        store = try Store(directory: nil, clock: Clock(fixedAt: 1_767_225_600_000))
    } catch {
        fatalError("direct: an in-memory store could not be opened: \(error)")
    }
    // Timers run after the input, in both runs alike (`EventLoop.timersWaitForEndOfInput`).
    _ = LarderService.serve(options: options, store: store, input: fileno(inFile), output: fileno(outFile)) {
        $0.loop.timersWaitForEndOfInput = true
    }
    let size = Int(lseek(fileno(outFile), 0, SEEK_END))
    var output = [UInt8](repeating: 0, count: size)
    _ = output.withUnsafeMutableBytes { pread(fileno(outFile), $0.baseAddress, size, 0) }
    return output
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDirect(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    Log.level = .error
    let input = UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: size)
    let reader = RequestReader.allocate(methods: ["cache.get", "cache.set", "cache.getOrFetch"])
    defer { reader.deallocate() }
    eachBody(of: input) { checkView(of: $0, reader: reader) }

    let ordinary = serve(input, directAnswers: false)
    let direct = serve(input, directAnswers: true)
    guard ordinary != direct else { return 0 }
    let a = ordinary.split(separator: 0x0A, omittingEmptySubsequences: false)
    let b = direct.split(separator: 0x0A, omittingEmptySubsequences: false)
    let k = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    fatalError("""
        direct: served with direct answers on and off, the output differs at line \(k + 1)
        ordinary: \(k < a.count ? show(a[k]) : "(none)")
        direct:   \(k < b.count ? show(b[k]) : "(none)")
        """)
}

@main
enum DirectTarget {
    static func main() {
        exit(fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzDirect))
    }
}
