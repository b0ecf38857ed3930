#if canImport(Glibc)
import Glibc
#endif
import CSQLite

/// What the figures were measured on.
struct Machine {
    var processors: Int
    var cpuModel: String
    var kernel: String
    var sqlite: String

    static func describe() -> Machine {
        let processors = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let cpu = TextFile.read("/proc/cpuinfo").flatMap { TextFile.field("model name", in: $0) } ?? "unknown"
        var names = utsname()
        uname(&names)
        func text<T>(_ field: inout T) -> String {
            withUnsafeBytes(of: &field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        let kernel = "\(text(&names.sysname)) \(text(&names.release)) \(text(&names.machine))"
        return Machine(processors: processors, cpuModel: cpu, kernel: kernel, sqlite: String(cString: sqlite3_libversion()))
    }
}
