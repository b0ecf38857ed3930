#if canImport(Glibc)
import Glibc
#endif

/// Gives freed heap memory back to the system.
///
/// glibc keeps freed memory for reuse; after a burst (a bulk load, a pipelined
/// run of writes) that can be most of the resident set, long after the burst.
/// `malloc_trim` is glibc's own extension, not in the headers Swift imports,
/// so it is looked up at run time; elsewhere this does nothing.
enum MemoryRelease {
    private typealias TrimFunction = @convention(c) (Int) -> Int32

    private static let function: TrimFunction? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: TrimFunction.self)
        #else
        return nil
        #endif
    }()

    static func trim() {
        _ = function?(0)
    }

    private typealias OptionFunction = @convention(c) (Int32, Int32) -> Int32

    /// Fixes the size from which glibc maps an allocation of its own (and so
    /// unmaps it when freed), instead of letting it rise to the largest
    /// block freed so far. Once a large request's buffer was freed, that rise
    /// put the next large blocks on the heap, where freed memory stays
    /// resident: reading back 24 MiB of `data` right after storing it peaked
    /// at 82 MiB above idle instead of 58. The heap keeps up to twice the
    /// threshold free at its top before shrinking, as the rising rule did.
    static func fixMappingThreshold() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: OptionFunction.self)
        let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1
        _ = mallopt(mmapThreshold, 4 << 20)
        _ = mallopt(trimThreshold, 8 << 20)
        #endif
    }
}
