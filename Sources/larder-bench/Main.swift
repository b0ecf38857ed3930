#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `larder-bench`: measures the release `larder` over pipes against two
/// floors measured in the same run (a trivial pipe responder and SQLite used
/// in-process), and prints a table (or JSON).
@main
enum Main {
    static func main() {
        // A child that dies mid-run must surface as EPIPE, not kill the bench.
        signal(SIGPIPE, SIG_IGN)
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Hidden: the bench re-executed as the pipe floor's responder.
        if arguments.first == EchoResponder.flag {
            let answerBytes = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 0
            exit(EchoResponder.run(answerBytes: answerBytes))
        }
        let options: Options
        do {
            options = try Options.parse(arguments)
        } catch {
            Progress.fail("\(error.message)\n\n\(Options.usage)", code: 2)
        }
        if options.help {
            Progress.write(1, Options.usage + "\n")
            exit(0)
        }
        let benchmark = Benchmark(options: options)
        let report = benchmark.run()
        if options.jsonToStdout {
            Progress.write(1, report.json() + "\n")
        } else {
            Progress.write(1, report.table())
        }
        if let path = options.jsonPath {
            guard TextFile.write(path, report.json() + "\n") else { Progress.fail("cannot write \(path)") }
        }
    }
}
