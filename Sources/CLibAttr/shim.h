#ifndef SANDBOX_AUDIT_CLIBATTR_SHIM_H
#define SANDBOX_AUDIT_CLIBATTR_SHIM_H
#include <sys/types.h>
#include <sys/xattr.h>
#include <attr/libattr.h>
#include <attr/error_context.h>
#endif
