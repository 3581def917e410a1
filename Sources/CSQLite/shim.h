#include <sqlite3.h>

/// Process-wide settings, applied once before the first connection opens (sqlite3_config is variadic,
/// so Swift cannot call it directly). Memory statistics off: with them on, every allocation SQLite
/// makes takes one global mutex to count bytes that Fauxth never reads, and both event loops allocate.
static inline int fauxth_sqlite3_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
