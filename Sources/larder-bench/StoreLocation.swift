/// Where a store is: a directory, or a schema on a PostgreSQL server.
enum StoreLocation {
    case directory(String)
    case schema(url: String, name: String)

    /// larder's arguments for it.
    var arguments: [String] {
        switch self {
        case .directory(let path): ["--store", path]
        case .schema(let url, let name): ["--store", url, "--pg-schema", name]
        }
    }
}
