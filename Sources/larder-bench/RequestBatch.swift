import LarderJSON

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

extension RequestBatch {
    /// Request k's params, parsed: for floors that hand the core in-process
    /// what a request asks of larder.
    func params(_ k: Int) -> JSON {
        let line = bytes[(k == 0 ? 0 : ends[k - 1])..<(ends[k] - 1)]
        guard let params = (try? JSONParser.parse(line))?["params"] else {
            Progress.fail("request \(k) of a batch has no params: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return params
    }
}
