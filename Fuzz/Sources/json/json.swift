#if canImport(Glibc)
import Glibc
#endif
import FuzzDriver
import LarderJSON

/// Any bytes: the parser either refuses them or returns a value whose
/// compact encoding parses back to an equal value and encodes to the same
/// bytes again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: size)
    let value: JSON
    do {
        value = try JSONParser.parse(bytes)
    } catch {
        guard error.offset >= 0 && error.offset <= size else {
            fatalError("json: a parse error's offset \(error.offset) lies outside the \(size) input bytes")
        }
        return 0
    }
    let encoded = value.encoded
    let again: JSON
    do {
        again = try JSONParser.parse(encoded)
    } catch {
        fatalError("json: the encoding of a parsed value does not parse (\(error)): \(String(decoding: encoded, as: UTF8.self))")
    }
    guard again == value else {
        fatalError("json: the encoding of a parsed value parses to a different value: \(String(decoding: encoded, as: UTF8.self))")
    }
    guard again.encoded == encoded else {
        fatalError("json: encoding is not stable: \(String(decoding: encoded, as: UTF8.self)) then \(again.description)")
    }
    return 0
}

@main
enum JSONTarget {
    static func main() {
        exit(fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, fuzzJSON))
    }
}
