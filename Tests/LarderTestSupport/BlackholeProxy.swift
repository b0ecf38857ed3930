#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A TCP proxy on 127.0.0.1 in front of a server, which can cut the
/// network silently: while cut it forwards nothing and closes nothing, so a
/// client's bytes are taken (its kernel sees them acknowledged) and no
/// answer ever comes, as behind a link that drops packets. Connections open
/// when the cut began are dropped when it ends, as a cut loses them: their
/// bytes never reach the server. New connections wait, unanswered, until
/// then.
public final class BlackholeProxy: @unchecked Sendable {
    public let port: UInt16
    private let target: sockaddr_in
    private let listener: Int32
    private let lock = NSLock()
    private var isCut = false
    private var stopped = false
    private var pairs: [(client: Int32, server: Int32)] = []
    /// Counts the cuts ended: the pairs polled before one are gone.
    private var cutsEnded = 0
    private let finished = DispatchSemaphore(value: 0)

    /// A proxy to `host` (an IPv4 address) and `port`.
    public init(to host: String, port targetPort: UInt16) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = targetPort.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        target = address

        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &local.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw ProxyError(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))") }
        port = UInt16(bigEndian: local.sin_port)
        Thread.detachNewThread { [self] in run() }
    }

    public struct ProxyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A proxy in front of the server a libpq URL names by IPv4 address and
    /// port (`postgresql://user@127.0.0.1:5432/db`), and the same URL
    /// naming the proxy instead; nil for a URL naming its server otherwise.
    public static func inFront(of url: String) throws -> (proxy: BlackholeProxy, url: String)? {
        guard let at = url.range(of: #"@[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+/"#, options: .regularExpression) else { return nil }
        let address = url[at].dropFirst().dropLast().split(separator: ":")
        guard address.count == 2, let port = UInt16(address[1]) else { return nil }
        let proxy = try BlackholeProxy(to: String(address[0]), port: port)
        return (proxy, url.replacingCharacters(in: at, with: "@127.0.0.1:\(proxy.port)/"))
    }

    /// Stops forwarding (true) or forwards again (false).
    public func cut(_ on: Bool) {
        lock.withLock {
            if !on && isCut {
                for pair in pairs {
                    close(pair.client)
                    close(pair.server)
                }
                pairs = []
                cutsEnded += 1
            }
            isCut = on
        }
    }

    public func stop() {
        lock.withLock { stopped = true }
        finished.wait()
        for pair in pairs {
            close(pair.client)
            close(pair.server)
        }
        close(listener)
    }

    private func run() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let (done, cut) = lock.withLock { (stopped, isCut) }
            if done { return }
            if cut {
                usleep(10_000)
                continue
            }
            lock.lock()
            let generation = cutsEnded
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for pair in pairs {
                fds.append(pollfd(fd: pair.client, events: Int16(POLLIN), revents: 0))
                fds.append(pollfd(fd: pair.server, events: Int16(POLLIN), revents: 0))
            }
            lock.unlock()
            guard poll(&fds, nfds_t(fds.count), 10) > 0 else { continue }
            lock.lock()
            defer { lock.unlock() }
            // Cut while waiting: nothing moves.
            if isCut || generation != cutsEnded { continue }
            var closed: Set<Int> = []
            for i in 0..<(fds.count - 1) / 2 {
                let pair = pairs[i]
                for (from, to) in [(fds[1 + 2 * i], pair.server), (fds[2 + 2 * i], pair.client)] where from.revents != 0 {
                    let n = read(from.fd, &buffer, buffer.count)
                    if n <= 0 || !Self.writeAll(to, buffer, n) { closed.insert(i) }
                }
            }
            for i in closed.sorted(by: >) {
                close(pairs[i].client)
                close(pairs[i].server)
                pairs.remove(at: i)
            }
            if fds[0].revents != 0 { acceptClient() }
        }
    }

    private func acceptClient() {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        // Not for the processes the tests start meanwhile.
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = target
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(client)
            close(server)
            return
        }
        pairs.append((client, server))
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ count: Int) -> Bool {
        var sent = 0
        while sent < count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }
}
