/// Where a store is: a directory, a schema on a PostgreSQL server, or
/// nowhere but the process's memory (`--memory`).
enum StoreLocation {
    case directory(String)
    case schema(url: String, name: String, coherence: String)
    case memory

    /// larder's arguments for it.
    var arguments: [String] {
        switch self {
        case .directory(let path): ["--store", path]
        case .schema(let url, let name, let coherence): ["--store", url, "--pg-schema", name, "--pg-coherence", coherence]
        case .memory: ["--memory"]
        }
    }

    /// The same store, reached by a sidecar that learns of others' writes as `coherence` says.
    func with(coherence: String) -> StoreLocation {
        guard case .schema(let url, let name, _) = self else { return self }
        return .schema(url: url, name: name, coherence: coherence)
    }
}
