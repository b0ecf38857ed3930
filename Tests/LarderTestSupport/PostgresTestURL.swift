import Foundation
import LarderSystem
import XCTest

/// The PostgreSQL server tests run against: `LARDER_TEST_PG_URL`, which
/// `.ci/with-postgres` sets for a throwaway cluster, or you set for a
/// database of your own. Without it the tests cannot run (`TestRefusal`).
public enum PostgresTestURL {
    public static var value: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["LARDER_TEST_PG_URL"], !url.isEmpty else {
                try TestRefusal.refuse("LARDER_TEST_PG_URL is not set: run the tests under .ci/with-postgres, or point it at a database")
            }
            return url
        }
    }

    /// Runs the harness's pg_ctl with `arguments` ("stop", "-m", "immediate"; "start").
    public static func control(_ arguments: [String]) throws {
        guard let ctl = ProcessInfo.processInfo.environment["LARDER_TEST_PG_CTL"], !ctl.isEmpty else {
            try TestRefusal.refuse("LARDER_TEST_PG_CTL is not set: stopping and starting the server needs the cluster .ci/with-postgres makes")
        }
        // Not Foundation's Process: it learns that its child exited when a
        // descriptor the child inherited is closed, and the server pg_ctl
        // starts keeps it open, so it would wait for the server to stop.
        let ended: Subprocess.Termination
        do {
            ended = try Subprocess(ctl, arguments: arguments, input: .null, output: .null).wait()
        } catch {
            throw TestRefusal(description: error.description)
        }
        guard ended == .exited(0) else {
            throw TestRefusal(description: "\(ctl) \(arguments.joined(separator: " ")) failed (\(ended))")
        }
    }
}
