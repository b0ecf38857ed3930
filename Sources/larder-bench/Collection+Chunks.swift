extension Collection {
    /// Consecutive slices of at most `size` elements.
    func chunks(of size: Int) -> [SubSequence] {
        var out: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            out.append(self[start..<end])
            start = end
        }
        return out
    }
}
