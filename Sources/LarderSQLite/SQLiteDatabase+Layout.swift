import LarderStorage

/// A store file's layout: its counter is `PRAGMA user_version`, its lock the
/// write lock (`BEGIN IMMEDIATE` waits for another process's, up to the busy
/// timeout).
extension SQLiteDatabase: LayoutDatabase {
    public func whileHoldingLayoutLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public func layoutCounter() throws(StoreError) -> Int64 {
        try integer("PRAGMA user_version")
    }

    public func setLayoutCounter(_ value: Int64) throws(StoreError) {
        try execute("PRAGMA user_version = \(value)")
    }

    public func recordedSteps() throws(StoreError) -> [String] {
        let names = try statement("SELECT name FROM layout_steps")
        defer { names.reset() }
        var recorded: [String] = []
        while try names.step() { recorded.append(try names.string(0)) }
        return recorded
    }
}
