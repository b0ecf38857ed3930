#include <stdint.h>
#include "FuzzDriver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

int fuzz_run(int argc, char **argv, int (*test)(const void *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, (int (*)(const uint8_t *, size_t))test);
}
