#ifndef SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#define SANDBOX_AUDIT_CLIBARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
