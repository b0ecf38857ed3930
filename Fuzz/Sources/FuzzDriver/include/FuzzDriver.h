#include <stddef.h>

/// Runs libFuzzer on `test` with the command line's options and inputs, and
/// returns the exit status. A target's `main` calls it: SwiftPM gives an
/// executable's entry point a name of its own and links `main` to that, so
/// libFuzzer's `main` cannot be the program's.
int fuzz_run(int argc, char *_Nullable *_Nonnull argv, int (*_Nonnull test)(const void *_Nonnull data, size_t size));
