/// Every text that differs from `bytes` by one byte deleted, replaced or
/// inserted at one position, the new bytes drawn from `alphabet`: a small,
/// exhaustive neighbourhood of valid input for differential tests.
public func oneByteVariants(of bytes: [UInt8], alphabet: [UInt8]) -> [[UInt8]] {
    var variants: [[UInt8]] = []
    for at in bytes.indices {
        var deleted = bytes
        deleted.remove(at: at)
        variants.append(deleted)
        for b in alphabet {
            var replaced = bytes
            replaced[at] = b
            var inserted = bytes
            inserted.insert(b, at: at)
            variants += [replaced, inserted]
        }
    }
    return variants
}
