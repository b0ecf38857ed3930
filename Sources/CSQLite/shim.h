#include <sqlite3.h>

/* sqlite3_config is variadic, and Swift cannot call a variadic C function:
   each setting the store makes is wrapped here. */
static inline int larder_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
