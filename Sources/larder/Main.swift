#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderCore
import LarderRPC
import LarderServer
import LarderSystem

@main
enum Main {
    static func main() {
        // A client that goes away must not kill us mid-write: write(2) reports EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        let invocation: Invocation
        do {
            invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail("\(error.message)\n\n\(Invocation.usage)", code: 2)
        }
        switch invocation {
        case .help:
            say(Invocation.usage + "\n")
            exit(0)
        case .version:
            say("larder \(Version.larder) (protocol \(Version.protocolVersion))\n")
            exit(0)
        case .serve(let options):
            exit(serve(options))
        case .replay(let paths):
            exit(ReplayCommand.run(paths))
        }
    }

    static func serve(_ options: ServeOptions) -> Int32 {
        Log.level = options.logLevel
        var serverOptions = options.server
        var location = StoreLocation.memory
        var storeText: String?
        if !options.inMemory {
            guard let text = options.explicitStore ?? DefaultStore.path(environment: environment()) else {
                fail("no store directory: pass --store DIR or --memory, or set LARDER_STORE or HOME", code: 2)
            }
            do {
                location = try StoreLocation(text, from: options.explicitStore != nil ? "--store" : "$LARDER_STORE",
                                             schema: options.pgSchema, coherence: options.pgCoherence)
            } catch {
                fail(error.message, code: 2)
            }
            if case .directory(let path) = location { serverOptions.storePath = path }
            storeText = text
            if options.pgTimeoutGiven, case .directory = location {
                fail("--pg-timeout needs a store on PostgreSQL (--store or $LARDER_STORE a postgresql:// URL), not the directory \(text)", code: 2)
            }
        }
        if let path = options.keyFile ?? environment()["LARDER_KEY_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            do { serverOptions.encryptionKey = try EncryptionKey(file: path) } catch { fail("refusing to start: \(error.reason)", code: 2) }
        }
        let store: Store
        do {
            store = try location.open(clock: options.clock.map { Clock(fixedAt: $0) } ?? Clock(), pgTimeout: serverOptions.pgTimeout)
        } catch {
            fail("cannot open the store: \(error.responseError.message)", code: 2)
        }
        for warning in store.warnings { Log.warn(warning) }
        if isatty(0) == 1 {
            Log.banner("larder \(Version.larder) serving JSON-RPC on stdin/stdout, store: \(location.description); one JSON request per line, Ctrl-D to quit")
        }
        var recorder: Recorder?
        if let path = options.recordPath {
            do {
                recorder = try Recorder(path: path, arguments: options.replayArguments, clockIsFixed: options.clock != nil,
                                        keyFile: serverOptions.encryptionKey != nil, store: storeText)
            } catch {
                fail(error.message, code: 2)
            }
        }
        let output = ProtocolOutput.claim()
        PipeBuffers.enlarge(0, output)
        MemoryRelease.fixMappingThreshold()
        return LarderService.serve(options: serverOptions, store: store, input: 0, output: output) { connection in
            connection.loop.onQuiet = MemoryRelease.trim
            guard let recorder else { return }
            recorder.connection = connection
            connection.onTraffic = { recorder.record($0, $1) }
        }
    }

    static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                result[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            p += 1
        }
        return result
    }

    static func say(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = write(1, $0.baseAddress, $0.count) }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        var bytes = Array("larder: \(message)\n".utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
        exit(code)
    }
}
