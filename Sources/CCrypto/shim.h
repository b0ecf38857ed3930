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

/* An HMAC-SHA-256 context keyed with `key`, or NULL. Building the
   OSSL_PARAM list needs a C array; the context is then reused for every
   MAC under that key (EVP_MAC_init with a NULL key keeps the key). */
static inline EVP_MAC_CTX *larder_hmac_sha256(const unsigned char *key, size_t length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (ctx == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_init(ctx, key, length, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}
