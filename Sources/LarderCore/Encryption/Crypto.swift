import CCrypto
import LarderStorage

/// The primitives an encrypted cache is built on, from OpenSSL's libcrypto:
/// AES-256-GCM, HMAC-SHA-256, HKDF over it, and the system's randomness.
/// Each keeps its OpenSSL context for its whole life: setting up a context
/// (fetching the algorithm, expanding the key) costs more than sealing a
/// small value, so a context is made once per key, not once per use. The
/// store is used from one thread at a time, and so are these.
enum Crypto {
    /// Bytes from the operating system's random source.
    static func random(_ count: Int) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw .internalFailure("no random bytes from OpenSSL") }
        return bytes
    }

    /// HKDF-SHA-256 (RFC 5869): `length` bytes (at most 32) from `secret`,
    /// `salt` and `info`.
    static func hkdf(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int = 32) throws(StoreError) -> [UInt8] {
        var prk = try HMAC(key: salt).mac(secret)
        defer { wipe(&prk) }
        return Array(try HMAC(key: prk).mac(info + [1]).prefix(length))
    }

    /// Overwrites key material before its memory is freed.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }
}

/// HMAC-SHA-256 under one key, from the SHA-256 states after its pads
/// (see the shim: a MAC of a short message is then two compressions).
final class HMAC {
    private let key: UnsafeMutablePointer<larder_hmac_key>

    init(key bytes: [UInt8]) throws(StoreError) {
        key = .allocate(capacity: 1)
        bytes.withUnsafeBufferPointer { larder_hmac_key_init(key, $0.baseAddress, $0.count) }
    }

    deinit {
        larder_hmac_key_wipe(key)
        key.deallocate()
    }

    /// The 32-byte MAC of the concatenated parts (at most three).
    func mac(_ a: [UInt8], _ b: [UInt8] = [], _ c: [UInt8] = []) throws(StoreError) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    c.withUnsafeBufferPointer { c in
                        larder_hmac_sha256_of(key, a.baseAddress, a.count, b.baseAddress, b.count, c.baseAddress, c.count, out.baseAddress)
                    }
                }
            }
            count = 32
        }
    }

    /// `mac` of a prefix and bytes lent in place (a key's UTF-8).
    func mac(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>, _ c: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            a.withUnsafeBufferPointer { a in
                larder_hmac_sha256_of(key, a.baseAddress, a.count, b.baseAddress, b.count, c.baseAddress, c.count, out.baseAddress)
            }
            count = 32
        }
    }
}

/// AES-256-GCM under one key, with a fresh random 96-bit nonce per seal.
/// A sealed value is laid out as `version (1) | nonce (12) | ciphertext | tag (16)`.
final class AESGCM {
    static let version: UInt8 = 1
    static let nonceCount = 12
    static let tagCount = 16
    /// What sealing adds to a value's size.
    static let overhead = 1 + nonceCount + tagCount

    private let encrypt: OpaquePointer
    private let decrypt: OpaquePointer
    /// Random bytes for nonces, taken from OpenSSL a few hundred nonces at a
    /// time: RAND_bytes cost about 6,600 instructions and a getpid system
    /// call per seal (OpenSSL checks for a fork on every call), half of what
    /// sealing a small value cost. Larder never forks.
    private var nonces: [UInt8] = []
    private var nextNonce = 0
    private static let noncesPerRefill = 256

    /// Seal or open failed its authentication: wrong key, changed bytes, or
    /// other associated data.
    struct Unauthentic: Error {}

    init(key: [UInt8]) throws(StoreError) {
        guard key.count == 32, let e = EVP_CIPHER_CTX_new(), let d = EVP_CIPHER_CTX_new() else {
            throw .internalFailure("OpenSSL could not make an AES-256-GCM context")
        }
        (encrypt, decrypt) = (e, d)
        guard EVP_EncryptInit_ex(e, EVP_aes_256_gcm(), nil, key, nil) == 1,
              EVP_DecryptInit_ex(d, EVP_aes_256_gcm(), nil, key, nil) == 1 else {
            throw .internalFailure("OpenSSL could not set an AES-256-GCM key")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(encrypt)
        EVP_CIPHER_CTX_free(decrypt)
    }

    /// `plaintext` sealed, bound to `associated`.
    private func takeNonce() throws(StoreError) -> ArraySlice<UInt8> {
        if nextNonce == nonces.count {
            nonces = try Crypto.random(Self.nonceCount * Self.noncesPerRefill)
            nextNonce = 0
        }
        defer { nextNonce += Self.nonceCount }
        return nonces[nextNonce..<nextNonce + Self.nonceCount]
    }

    func seal(_ plaintext: UnsafeBufferPointer<UInt8>, associated: [UInt8]) throws(StoreError) -> [UInt8] {
        let nonce = Array(try takeNonce())
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.overhead)
        let ok = out.withUnsafeMutableBufferPointer { o -> Bool in
            o[0] = Self.version
            for i in 0..<Self.nonceCount { o[1 + i] = nonce[i] }
            let body = o.baseAddress! + 1 + Self.nonceCount
            var n: Int32 = 0
            guard EVP_EncryptInit_ex(encrypt, nil, nil, nil, nonce) == 1,
                  associated.withUnsafeBufferPointer({ EVP_EncryptUpdate(encrypt, nil, &n, $0.baseAddress, Int32($0.count)) }) == 1
            else { return false }
            if plaintext.count > 0 {
                guard EVP_EncryptUpdate(encrypt, body, &n, plaintext.baseAddress, Int32(plaintext.count)) == 1 else { return false }
            }
            var end = [UInt8](repeating: 0, count: Self.tagCount)
            guard EVP_EncryptFinal_ex(encrypt, &end, &n) == 1 else { return false }
            return larder_gcm_get_tag(encrypt, body + plaintext.count, Int32(Self.tagCount)) == 1
        }
        guard ok else { throw .internalFailure("AES-256-GCM sealing failed") }
        return out
    }

    /// The plaintext of `sealed`, or `Unauthentic` when it was not sealed
    /// under this key with `associated`, or was changed since.
    func open(_ sealed: [UInt8], associated: [UInt8]) throws(Unauthentic) -> [UInt8] {
        guard sealed.count >= Self.overhead, sealed[0] == Self.version else { throw Unauthentic() }
        let count = sealed.count - Self.overhead
        var out = [UInt8](repeating: 0, count: count)
        let ok = sealed.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o -> Bool in
                let nonce = s.baseAddress! + 1
                let body = nonce + Self.nonceCount
                var tag = Array(UnsafeBufferPointer(start: body + count, count: Self.tagCount))
                var n: Int32 = 0
                guard EVP_DecryptInit_ex(decrypt, nil, nil, nil, nonce) == 1,
                      associated.withUnsafeBufferPointer({ EVP_DecryptUpdate(decrypt, nil, &n, $0.baseAddress, Int32($0.count)) }) == 1
                else { return false }
                if count > 0 {
                    guard EVP_DecryptUpdate(decrypt, o.baseAddress, &n, body, Int32(count)) == 1 else { return false }
                }
                guard larder_gcm_set_tag(decrypt, &tag, Int32(Self.tagCount)) == 1 else { return false }
                // GCM writes nothing at the end; the call checks the tag.
                var end = [UInt8](repeating: 0, count: Self.tagCount)
                return EVP_DecryptFinal_ex(decrypt, &end, &n) == 1
            }
        }
        guard ok else { throw Unauthentic() }
        return out
    }
}
