/* SHA256_Init and its kin are deprecated in OpenSSL 3, which points to
   EVP_MAC instead; but an HMAC through EVP_MAC costs about 7,000
   instructions for a 16-byte key (callgrind), most of it setting the
   context up again, where two SHA-256 blocks from saved states cost a few
   hundred. The low-level calls are kept for that, below only. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* The GCM tag is read and set through EVP_CIPHER_CTX_ctrl with constants
   defined as macros of macros, which Swift does not import. */
static inline int larder_gcm_get_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, length, tag);
}

static inline int larder_gcm_set_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, length, tag);
}


/* HMAC-SHA-256 (RFC 2104) from the SHA-256 states after the key's inner and
   outer pads, computed once per key. */
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} larder_hmac_key;

static inline void larder_hmac_key_init(larder_hmac_key *k, const unsigned char *key, size_t length) {
    unsigned char block[64];
    memset(block, 0, sizeof block);
    if (length > 64) {
        SHA256(key, length, block);
    } else {
        memcpy(block, key, length);
    }
    unsigned char pad[64];
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&k->inner);
    SHA256_Update(&k->inner, pad, 64);
    for (int i = 0; i < 64; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&k->outer);
    SHA256_Update(&k->outer, pad, 64);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

/* The MAC of the concatenation a | b | c (any may be empty). */
static inline void larder_hmac_sha256_of(const larder_hmac_key *k,
                                         const unsigned char *a, size_t an,
                                         const unsigned char *b, size_t bn,
                                         const unsigned char *c, size_t cn,
                                         unsigned char out[32]) {
    SHA256_CTX ctx = k->inner;
    if (an) SHA256_Update(&ctx, a, an);
    if (bn) SHA256_Update(&ctx, b, bn);
    if (cn) SHA256_Update(&ctx, c, cn);
    unsigned char inner[32];
    SHA256_Final(inner, &ctx);
    ctx = k->outer;
    SHA256_Update(&ctx, inner, 32);
    SHA256_Final(out, &ctx);
    OPENSSL_cleanse(&ctx, sizeof ctx);
}

static inline void larder_hmac_key_wipe(larder_hmac_key *k) {
    OPENSSL_cleanse(k, sizeof *k);
}
