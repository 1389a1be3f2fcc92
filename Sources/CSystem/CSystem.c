#define _GNU_SOURCE
#include "CSystem.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

#ifdef O_NOATIME
const int sandbox_audit_o_noatime = O_NOATIME;
#else
const int sandbox_audit_o_noatime = 0;
#endif

const long sandbox_audit_utime_now = UTIME_NOW;

#ifdef SEEK_DATA
const int sandbox_audit_seek_data = SEEK_DATA;
const int sandbox_audit_seek_hole = SEEK_HOLE;
#else
const int sandbox_audit_seek_data = -1;
const int sandbox_audit_seek_hole = -1;
#endif

ssize_t sandbox_audit_copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len) {
#if defined(__linux__) && defined(SYS_copy_file_range)
    return syscall(SYS_copy_file_range, in, in_off, out, out_off, len, 0);
#else
    (void)in; (void)in_off; (void)out; (void)out_off; (void)len;
    errno = ENOSYS;
    return -1;
#endif
}

#if defined(__linux__)
#ifndef SYS_listxattrat
/* Not in this libc's headers yet: the number the kernel gave it, the same on every architecture. */
#define SYS_listxattrat 465
#endif
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#endif

ssize_t sandbox_audit_listxattrat(int dirfd, const char *name, char *list, size_t size) {
#if defined(__linux__)
    return syscall(SYS_listxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, list, size);
#else
    (void)dirfd; (void)name; (void)list; (void)size;
    errno = ENOSYS;
    return -1;
#endif
}

ssize_t sandbox_audit_getxattrat(int dirfd, const char *name, const char *attribute, void *value, size_t size) {
#if defined(__linux__)
    /* struct xattr_args of <linux/xattr.h> (6.13), written out: older headers lack it. */
    struct { unsigned long long value; unsigned int size; unsigned int flags; } args = {
        (unsigned long long)(unsigned long)value, (unsigned int)(size > 0xFFFFFFFFu ? 0xFFFFFFFFu : size), 0 };
    return syscall(SYS_getxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, attribute, &args, sizeof args);
#else
    (void)dirfd; (void)name; (void)attribute; (void)value; (void)size;
    errno = ENOSYS;
    return -1;
#endif
}

int sandbox_audit_rename_noreplace(int olddirfd, const char *oldname, int newdirfd, const char *newname) {
#if defined(__linux__) && defined(SYS_renameat2) && defined(RENAME_NOREPLACE)
    return (int)syscall(SYS_renameat2, olddirfd, oldname, newdirfd, newname, RENAME_NOREPLACE);
#elif defined(__APPLE__) && defined(RENAME_EXCL)
    return renameatx_np(olddirfd, oldname, newdirfd, newname, RENAME_EXCL);
#else
    (void)olddirfd; (void)oldname; (void)newdirfd; (void)newname;
    errno = ENOSYS;
    return -1;
#endif
}

int sandbox_audit_openat2_beneath(int dirfd, const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_BENEATH)
    struct open_how how = { .flags = (unsigned long long)(unsigned int)flags, .mode = 0,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    (void)dirfd; (void)path; (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

void sandbox_audit_configure_allocator(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 16 * 1024 * 1024);
    mallopt(M_ARENA_MAX, 1);
#endif
}
