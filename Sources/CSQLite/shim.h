#ifndef SANDBOX_AUDIT_CSQLITE_SHIM_H
#define SANDBOX_AUDIT_CSQLITE_SHIM_H
#include <sqlite3.h>

/* Double-quoted string literals refused on a connection (sqlite3_db_config is variadic, which
   Swift does not import). SQLite before 3.29 has no such setting: nothing to refuse there. */
static inline void sandbox_audit_sqlite_refuse_double_quoted_strings(sqlite3 *db) {
#if SQLITE_VERSION_NUMBER >= 3029000
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
#else
    (void)db;
#endif
}
#endif
