// What keeps the self-contained larder (.ci/dist) to glibc 2.34.
//
// Linked statically, two libraries ask glibc for symbols newer than
// everything else the executable needs (GLIBC_2.34, `objdump -T`):
// libstdc++'s std::random_device for arc4random (GLIBC_2.36) and the Swift
// Glibc overlay for hypotf (GLIBC_2.35, a new version of an old function).
// They alone would shut out Ubuntu 22.04 (2.35) and RHEL 9 (2.34). .ci/dist
// links with `--wrap=arc4random --wrap=hypotf`, which sends those
// references here; other builds never call these.
#include "compat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/random.h>

uint32_t __wrap_arc4random(void) {
    // getrandom (GLIBC_2.25) is what glibc's arc4random reads too.
    uint32_t value;
    unsigned char *at = (unsigned char *)&value;
    size_t left = sizeof value;
    while (left > 0) {
        ssize_t n = getrandom(at, left, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            abort(); // as glibc's arc4random does when the kernel gives no randomness
        }
        at += n;
        left -= (size_t)n;
    }
    return value;
}

float __wrap_hypotf(float x, float y) {
    // In double, a float's square is exact and cannot overflow or vanish, so
    // this is hypotf's answer without a call into libm; C's hypot is
    // infinite when either side is, even beside a NaN.
    if (isinf(x) || isinf(y)) return INFINITY;
    double dx = x, dy = y;
    return (float)__builtin_sqrt(dx * dx + dy * dy);
}
