import LarderCore
import LarderRPC

/// `debug.advanceClock {seconds}` (test only): moves the fixed clock (`--clock`) forward.
enum DebugAdvanceClock: MethodHandler {
    static let method = "debug.advanceClock"
    static let requiredParams = ["seconds"]
    static let isTestOnly = true

    static func handle(_ r: Request) throws(ResponseError) -> Response {
        guard let ms = try r.params.milliseconds("seconds") else {
            throw .invalidParams("missing required parameter params.seconds (number)")
        }
        let clock = r.server.store.clock
        guard clock.advance(milliseconds: ms) else {
            throw .requestFailed("the clock is the system's; start larder with --clock to move it")
        }
        return .result(["now": .string(Timestamp.format(milliseconds: clock.now))])
    }
}
