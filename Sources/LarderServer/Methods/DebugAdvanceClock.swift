import LarderCore
import LarderJSON
import LarderRPC

/// `debug.advanceClock {seconds}` (test only): moves the fixed clock (`--clock`) forward.
enum DebugAdvanceClock: MethodDefinition {
    static let method = "debug.advanceClock"
    static let isTestOnly = true

    struct Params: ParamsObject {
        static let members = ["seconds"]
        static let requiredMembers = ["seconds"]
        let milliseconds: Int64

        init(_ p: ParamsReader) throws(ResponseError) {
            guard let ms = try p.milliseconds("seconds") else {
                throw .invalidParams("missing required parameter \(p.path).seconds (number)")
            }
            milliseconds = ms
        }
    }

    static func handle(_ p: Params, _ r: Request) throws(ResponseError) -> Response<Result> {
        let clock = r.server.store.clock
        guard clock.advance(milliseconds: p.milliseconds) else {
            throw .requestFailed("the clock is the system's; start larder with --clock to move it")
        }
        return .result(Result(now: clock.now))
    }

    struct Result: MethodResult {
        /// The clock's time now, in milliseconds since 1970.
        let now: Int64
        var json: JSON { ["now": .string(Timestamp.format(milliseconds: now))] }
    }
}
