/// Requests encoded ahead of time: one buffer of newline-terminated JSON-RPC
/// lines and where each ends, so the driver only copies bytes.
struct RequestBatch {
    var bytes: [UInt8] = []
    /// `ends[k]` is the offset just past request k's newline.
    var ends: [Int] = []

    var count: Int { ends.count }

    init(reservingBytes: Int = 0, requests: Int = 0) {
        bytes.reserveCapacity(reservingBytes)
        ends.reserveCapacity(requests)
    }

    mutating func endRequest() {
        bytes.append(0x0A)
        ends.append(bytes.count)
    }
}
