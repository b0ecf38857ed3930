#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LarderStorage
import LarderSQLite

/// Noticing that the store's database file was deleted, moved away or
/// replaced while in use.
///
/// SQLite goes on reading and writing the file it opened, by descriptor, and
/// commits into a deleted or replaced file succeed: acknowledged, yet gone at
/// the next start. Worse, SQLite names the write-ahead log after the path,
/// leaves the log of a database that moved in place when it closes (it
/// neither checkpoints nor deletes it), and replays a log onto whatever
/// non-empty database it finds beside it — nothing in the log ties it to its
/// database; its salts and checksums only tie frames to the log's header
/// (measured with SQLite 3.40.1: a replacement got the old store's keys back
/// and lost its own). A database left empty or deleted is safe from this:
/// SQLite deletes a log it finds beside an empty database.
extension Store {
    /// The files SQLite opened for a store on disk, as they were once opened.
    struct OpenedFiles {
        let database: FileIdentity
        /// The write-ahead log and the WAL index: nil if SQLite had not made them.
        let log: FileIdentity?
        let index: FileIdentity?
    }

    /// Notes which files the store is using; fails if the path stopped naming
    /// the database SQLite opened before it could be noted.
    func noteOpenedFiles() throws(StoreError) {
        guard let directory, let sqlite else { return }
        let path = sqlite.path
        guard let identity = FileIdentity(path: path), !sqlite.hasMoved else {
            throw .unavailable(path: directory, reason: "\(path) was deleted or replaced while being opened")
        }
        openedFiles = OpenedFiles(database: identity, log: FileIdentity(path: path + "-wal"),
                                  index: FileIdentity(path: path + "-shm"))
    }

    /// Throws `.lost` if the database file is no longer at its path — deleted,
    /// moved away or replaced — or was found so before. One stat(2): the
    /// server asks after each commit it is about to acknowledge, and never
    /// acknowledges one that went into a file the next start will not open.
    ///
    /// Once lost, the store is abandoned: nothing more is written, and our log
    /// and index are removed from the path if they are still there, so that
    /// the next start does not replay them onto whatever database is there now.
    public func checkInPlace() throws(StoreError) {
        if let lost { throw lost }
        guard let openedFiles, let sqlite else { return }
        let now = FileIdentity(path: sqlite.path)
        guard now != openedFiles.database else { return }
        let error = StoreError.lost(path: sqlite.path,
                                    reason: now == nil ? "deleted or moved away" : "replaced by another file")
        lost = error
        abandon(openedFiles, sqlite)
        throw error
    }

    private func abandon(_ opened: OpenedFiles, _ database: SQLiteDatabase) {
        // SQLite decides whether the database moved by inode alone; whatever
        // it decides, closing must not delete files that may now be another
        // store's.
        database.keepLogOnClose()
        for (path, identity) in [(database.path + "-wal", opened.log), (database.path + "-shm", opened.index)] {
            if let identity, FileIdentity(path: path) == identity { unlink(path) }
        }
    }
}
