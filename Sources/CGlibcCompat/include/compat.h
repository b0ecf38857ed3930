// The replacements .ci/dist links in place of arc4random and hypotf (compat.c).
#include <stdint.h>

uint32_t __wrap_arc4random(void);
float __wrap_hypotf(float x, float y);
