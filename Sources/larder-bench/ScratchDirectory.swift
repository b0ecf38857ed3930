#if canImport(Glibc)
import Glibc
#endif

/// The temporary directory a run keeps its stores in, removed at the end.
struct ScratchDirectory {
    let path: String

    static func create() -> ScratchDirectory {
        var template = Array("/tmp/larder-bench.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            Progress.fail("mkdtemp failed: \(Progress.errorText())")
        }
        return ScratchDirectory(path: String(cString: made))
    }

    /// A fresh (not yet existing) path inside; Larder creates the directory itself.
    func child(_ name: String) -> String {
        let p = path + "/" + name
        Self.remove(p)
        return p
    }

    /// Sum of the sizes of the regular files directly in `dir`.
    static func bytes(in dir: String) -> Int {
        var total = 0
        for name in entries(of: dir) {
            var info = stat()
            if stat(dir + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { total += Int(info.st_size) }
        }
        return total
    }

    /// Removes a file or a directory tree; absent is fine.
    static func remove(_ p: String) {
        var info = stat()
        guard lstat(p, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in entries(of: p) { remove(p + "/" + name) }
            rmdir(p)
        } else {
            unlink(p)
        }
    }

    func removeAll() { Self.remove(path) }

    private static func entries(of dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: &e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
