/* The user-space extended-attribute calls of macOS, for scripts/darwin-check.sh only: the macOS
   libc headers that PyPI's ziglang bundles have no <sys/xattr.h>. Declared here from the
   documented synopsis (getxattr(2), listxattr(2), setxattr(2), removexattr(2)); the header they
   come from on a Mac is xnu's bsd/sys/xattr.h
   (https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/xattr.h). Only the names
   and types the Swift code uses are declared. */
#ifndef SANDBOX_AUDIT_DARWIN_CHECK_XATTR_H
#define SANDBOX_AUDIT_DARWIN_CHECK_XATTR_H
#include <sys/types.h>
#define XATTR_NOFOLLOW 0x0001
#define XATTR_CREATE 0x0002
#define XATTR_REPLACE 0x0004
ssize_t getxattr(const char *path, const char *name, void *value, size_t size, u_int32_t position, int options);
ssize_t fgetxattr(int fd, const char *name, void *value, size_t size, u_int32_t position, int options);
int setxattr(const char *path, const char *name, const void *value, size_t size, u_int32_t position, int options);
int fsetxattr(int fd, const char *name, const void *value, size_t size, u_int32_t position, int options);
int removexattr(const char *path, const char *name, int options);
int fremovexattr(int fd, const char *name, int options);
ssize_t listxattr(const char *path, char *namebuf, size_t size, int options);
ssize_t flistxattr(int fd, char *namebuf, size_t size, int options);
#endif
