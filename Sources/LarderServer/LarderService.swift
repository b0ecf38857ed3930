import LarderCore
import LarderRPC

/// Starts a server on a pair of descriptors: the entry point `main` calls.
public enum LarderService {
    /// Serves until the input ends or `exit` arrives; returns the exit code.
    public static func serve(options: ServerOptions, store: Store, input: Int32, output: Int32,
                             configure: (Connection) -> Void = { _ in }) -> Int32 {
        let connection = Connection(input: input, output: output, maxMessageBytes: options.maxMessageBytes)
        configure(connection)
        let server = Server(options: options, store: store, connection: connection)
        connection.handler = server
        return withExtendedLifetime(server) {
            let code = connection.run()
            return server.storeIsLost ? Server.storeLostExitCode : code
        }
    }
}
