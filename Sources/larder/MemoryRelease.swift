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
}
