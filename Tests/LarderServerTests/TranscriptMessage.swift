import Foundation
import LarderJSON
@testable import larder

/// One message a transcript expects from the server (a `<--` line, or one
/// answer of a batch), with what the transcript says about where it comes
/// from. The transcript is read as `larder replay` reads it (`Transcript`);
/// the format is in protocol/transcripts/README.md.
struct TranscriptMessage {
    /// `file:line`.
    let place: String
    let message: JSON
    /// For a response: the method of the request it answers, the latest
    /// request before it with the same id; nil when there is none.
    let requestMethod: String?
    /// For a request of the server: whether a `debug.ask` of the transcript
    /// asked the server to send a request of this method.
    let isAskedForByDebugAsk: Bool

    var isResponse: Bool { message["method"] == nil }

    static func all(in directory: URL) throws -> [TranscriptMessage] {
        var all: [TranscriptMessage] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() where file.hasSuffix(".transcript") {
            let transcript = try Transcript(text: String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
            // Per server (`B-->` lines are a second server's, with ids of its own).
            var methods: [Character: [String: String]] = [:]
            var asked: Set<String> = []
            for step in transcript.steps {
                switch step.action {
                case .send(let text):
                    // A message need not be JSON: some test how the server takes text that is not.
                    guard let message = try? JSONParser.parse(Array(text.utf8)) else { continue }
                    for request in message.arrayValue ?? [message] {
                        guard let method = request["method"]?.stringValue else { continue }
                        if let id = request["id"] { methods[step.process, default: [:]][id.description] = method }
                        if method == "debug.ask", let askedFor = request["params"]?["method"]?.stringValue { asked.insert(askedFor) }
                    }
                case .expect(let text):
                    let message = try JSONParser.parse(Array(text.utf8))
                    for element in message.arrayValue ?? [message] {
                        let method = element["method"]?.stringValue
                        all.append(TranscriptMessage(
                            place: "\(file):\(step.line)", message: element,
                            requestMethod: method == nil ? element["id"].flatMap { methods[step.process]?[$0.description] } : nil,
                            isAskedForByDebugAsk: method.map(asked.contains) ?? false))
                    }
                case .expectNone:
                    continue
                }
            }
        }
        return all
    }
}
