import LarderCore
import LarderJSON
import LarderRPC
import LarderStorage

/// Reads an object through its migrations, asking the client (`migrate.object`)
/// whenever a `callback` step needs it, while other requests keep being served.
///
/// The core never waits: each answer is added to the ones collected so far and
/// the read runs again from the stored data, so what is written back always
/// rests on the latest stored value.
final class ObjectFetch {
    private unowned let server: Server
    private let cache: Cache
    private let key: EntryKey
    private let writeBack: Bool
    private var answers: [String: CallbackAnswer] = [:]
    private let completion: (Result<ObjectRead, ResponseError>) -> Void

    private init(server: Server, cache: Cache, key: EntryKey, writeBack: Bool,
                 completion: @escaping (Result<ObjectRead, ResponseError>) -> Void) {
        self.server = server
        self.cache = cache
        self.key = key
        self.writeBack = writeBack
        self.completion = completion
    }

    static func read(_ key: EntryKey, in cache: Cache, server: Server, writeBack: Bool = true,
                     completion: @escaping (Result<ObjectRead, ResponseError>) -> Void) {
        ObjectFetch(server: server, cache: cache, key: key, writeBack: writeBack, completion: completion).attempt()
    }

    private func attempt() {
        let outcome: ObjectRead
        // Each object's write-back fails alone (`Store.requestFailed`): one
        // object of a `migrate.run` batch, say, and not the whole batch.
        server.store.beginRequest()
        do {
            outcome = try cache.readObject(key, answers: answers, writeBack: writeBack)
        } catch {
            server.store.requestFailed()
            completion(.failure(error.responseError))
            return
        }
        guard case .needsCallback(let question) = outcome else {
            completion(.success(outcome))
            return
        }
        guard server.migrationCallbacks else {
            completion(.failure(StoreError.migrationFailed(
                key: key.key, type: question.type, from: question.fromVersion, to: question.toVersion,
                reason: "a migration step asks the client, but the client did not declare capabilities.migrationCallbacks in initialize"
            ).responseError))
            return
        }
        server.connection.send(MigrateObject.self, .init(question: question, cache: cache.name, entry: key)) { [self] result in
            switch result {
            case .success(let answer): answers[question.id] = answer.answer
            case .failure(let error): answers[question.id] = .failure(error.message)
            }
            attempt()
        }
    }
}
