/// Versions of the server and of the protocol it speaks.
public enum Version {
    public static let larder = "0.1.0"
    /// Bumped in its minor part when methods are added, in its major part when
    /// an existing method changes incompatibly (see protocol/SPEC.md).
    public static let protocolVersion = "1.7"
}
