/// A change to entries that a value read before it must not be written
/// over: what a fetch of `cache.getOrFetch` is compared with before its
/// answer is stored (SPEC 9.44). The store publishes each one as it is made
/// (`Store.onEntryChange`), whoever made it and whether or not a client
/// subscribed to events: the removals made here, by whichever request, and
/// what another writer's commit says it changed.
///
/// Writes of entries are not published: a write leaves an entry that is
/// not the one the reader saw, which the reader can compare. Evictions and
/// purges made here are not either: they remove an entry nobody asked to
/// remove, and a value fetched to replace an expired one is still newer.
public enum EntryChange: Sendable, Equatable {
    /// `key` was removed from `cache` (or asked to be, though it was absent).
    case removed(cache: String, key: EntryKey)
    /// Entries of `cache` were cleared (a tier, a group or all of them), or the cache was dropped.
    case cleared(cache: String)
    /// Another writer committed a change to `key` of `cache` (to any of its
    /// entries when nil): a write, a removal, an eviction.
    case changedElsewhere(cache: String, key: EntryKey?)
    /// Another writer committed without saying which entries it changed
    /// (another process on a store directory: SQLite tells only that
    /// something changed), or changed a cache this process has not loaded.
    case anythingChangedElsewhere
}
