#ifndef SANDBOX_AUDIT_CLIBATTR_SHIM_H
#define SANDBOX_AUDIT_CLIBATTR_SHIM_H
#include <sys/types.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>
#include <attr/libattr.h>
#include <attr/error_context.h>

#ifdef SYS_listxattrat
#define SANDBOX_AUDIT_SYS_LISTXATTRAT SYS_listxattrat
#else
#define SANDBOX_AUDIT_SYS_LISTXATTRAT 465 /* the same number on every architecture */
#endif

/* listxattrat(2), Linux 6.13 and later: the attribute names of NAME inside the open directory
   DIRFD, without following a symlink and without building a path. glibc has no wrapper yet,
   and Swift cannot call the variadic syscall(2). Fails with ENOSYS on older kernels. */
static inline ssize_t sandbox_audit_listxattrat(int dirfd, const char *name, char *list, size_t size) {
    return syscall(SANDBOX_AUDIT_SYS_LISTXATTRAT, dirfd, name, AT_SYMLINK_NOFOLLOW, list, size);
}

/* For materialising containers: GNU extensions the Swift Glibc module does not export. */
#define SANDBOX_AUDIT_SEEK_DATA 3
#define SANDBOX_AUDIT_SEEK_HOLE 4
static inline ssize_t sandbox_audit_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len) {
    return syscall(SYS_copy_file_range, in, in_off, out, out_off, len, 0);
}
#endif
