/// Trimming without Foundation.
extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let drop = Set(set)
        var s = Substring(self)
        while let c = s.first, drop.contains(c) { s = s.dropFirst() }
        while let c = s.last, drop.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
