#ifndef SANDBOX_AUDIT_CSYSTEM_H
#define SANDBOX_AUDIT_CSYSTEM_H
/* What Swift cannot reach of the system's C interface: constants defined only under
   _GNU_SOURCE or as expressions the importer skips, and calls that are variadic or have no libc
   wrapper yet. Each is read from the platform's own headers in CSystem.c, never written here
   as a number. The Swift side is Sources/SandboxAuditSystem/System/Platform+*.swift. */
#include <sys/types.h>

/* O_NOATIME (Linux; 0 where the system has none). */
extern const int sandbox_audit_o_noatime;
/* UTIME_NOW for utimensat(2) and futimens(2). */
extern const long sandbox_audit_utime_now;
/* lseek(2) whences for sparse files; -1 where the system has none. */
extern const int sandbox_audit_seek_data;
extern const int sandbox_audit_seek_hole;

/* copy_file_range(2) (Linux): -1 with errno ENOSYS elsewhere. */
ssize_t sandbox_audit_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len);

/* listxattrat(2) (Linux 6.13 and later): the attribute names of NAME inside the open directory
   DIRFD, not following a symlink. glibc has no wrapper yet and Swift cannot call the variadic
   syscall(2). -1 with errno ENOSYS on older kernels and elsewhere. */
ssize_t sandbox_audit_listxattrat(int dirfd, const char *name, char *list, size_t size);

/* getxattrat(2) (Linux 6.13 and later): the value of the attribute ATTRIBUTE of NAME inside the
   open directory DIRFD, not following a symlink; the same return and errno as lgetxattr(2).
   -1 with errno ENOSYS on older kernels and elsewhere. */
ssize_t sandbox_audit_getxattrat(int dirfd, const char *name, const char *attribute, void *value, size_t size);

/* renameat2(2) with RENAME_NOREPLACE (Linux 3.15 and later), renameatx_np(2) with RENAME_EXCL
   (Darwin): a rename that fails with EEXIST rather than replace what NEWNAME holds. -1 with
   errno ENOSYS (or EINVAL from a file system without it) where the system has none. */
int sandbox_audit_rename_noreplace(int olddirfd, const char *oldname, int newdirfd, const char *newname);

/* openat2(2) (Linux 5.6 and later) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: PATH opened
   inside the open directory DIRFD, refused (EXDEV, ELOOP) where any of its components is a
   symlink or leads above DIRFD. FLAGS are open(2)'s. -1 with errno ENOSYS on older kernels
   (or where a filter hides the call) and elsewhere: the caller opens one component at a time. */
int sandbox_audit_openat2_beneath(int dirfd, const char *path, int flags);

/* Under glibc, mallopt(M_MMAP_THRESHOLD, 16 MiB), which fixes the threshold (otherwise it rises
   to the largest mapped block freed so far, up to 32 MiB, and the heap keeps twice that free
   at its top), and mallopt(M_ARENA_MAX, 1): one heap for every thread. Nothing elsewhere. */
void sandbox_audit_configure_allocator(void);

#endif
