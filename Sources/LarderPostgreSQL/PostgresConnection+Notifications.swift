#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ
import LarderStorage

extension PostgresConnection {
    /// Listens to `channel` (LISTEN): NOTIFYs on it, from any session, are
    /// delivered to this one once their transaction commits. Listening goes
    /// on in every later session; notifications sent while none was open are lost.
    public func listen(_ channel: String) throws(StoreError) {
        let connection = try session()
        guard let quoted = Self.quotedIdentifier(channel, on: connection) else { throw failure(nil, connection) }
        try execute("LISTEN \(quoted)")
        if !channels.contains(channel) { channels.append(channel) }
    }

    public func unlisten(_ channel: String) throws(StoreError) {
        let connection = try session()
        guard let quoted = Self.quotedIdentifier(channel, on: connection) else { throw failure(nil, connection) }
        try execute("UNLISTEN \(quoted)")
        channels.removeAll { $0 == channel }
    }

    /// Sends `payload` on `channel` (delivered when the current transaction commits).
    public func notify(_ channel: String, payload: String = "") throws(StoreError) {
        try query("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// The socket to wait on (with poll or an event loop) for notifications
    /// to arrive; -1 while no session is open. It changes with each session.
    public var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// The notifications that have arrived, without waiting: reads what the
    /// socket holds (never blocking) and returns what it and earlier
    /// results brought.
    public func notifications() throws(StoreError) -> [PostgresNotification] {
        let connection = try session()
        guard PQconsumeInput(connection) == 1 else { throw failure(nil, connection) }
        var arrived: [PostgresNotification] = []
        while let notice = PQnotifies(connection) {
            let n = notice.pointee
            arrived.append(PostgresNotification(channel: String(cString: n.relname),
                                                payload: n.extra.map { String(cString: $0) } ?? "",
                                                senderPID: n.be_pid))
            PQfreemem(notice)
        }
        return arrived
    }

    /// The notifications that arrive within `timeout`: returns as soon as
    /// there are some, or empty once the time is up.
    public func waitForNotifications(timeout: Duration) throws(StoreError) -> [PostgresNotification] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let arrived = try notifications()
            let left = deadline - ContinuousClock.now
            if !arrived.isEmpty || left <= .zero { return arrived }
            let (seconds, attoseconds) = left.components
            var wait = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&wait, 1, Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000) + 1)
        }
    }
}
