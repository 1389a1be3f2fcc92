/* Every Darwin call and constant Sources/SandboxAuditSystem makes under canImport(Darwin) or in
   both branches, in the argument shapes the Swift code passes, compiled by
   scripts/darwin-check.sh against the macOS headers zig bundles (and xattr.h here). A compile
   error or an availability warning here predicts one in `swift build` on macOS. The script
   also derives the C names the Swift code uses and fails on one this file does not make, so a
   new call cannot go unchecked: add it here, in the shape the Swift code passes. */
#include <sys/sysctl.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include "xattr.h" /* zig bundles no <sys/xattr.h>: see xattr.h */
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <spawn.h>
#include <poll.h>
#include <time.h>
#include <sys/wait.h>
#include <crt_externs.h>

static volatile sig_atomic_t caught;
static void handler(int s) { caught = s; }
/* ByteSize: vsnprintf with the va_list withVaList hands it. */
static int format(char *b, const char *f, ...) { va_list ap; va_start(ap, f); int r = vsnprintf(b, 64, f, ap); va_end(ap); return r; }

int main(void) {
    int dir = AT_FDCWD; const char *name = "x"; char buf[1024]; ssize_t n;
    /* FileDescriptor.Access */
    int dflags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int rflags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int nflags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int aflags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC;
    int fd = openat(dir, name, dflags | rflags | nflags | aflags, (mode_t)0600);
    /* XAttr.onChildDescriptor */
    int cfd = openat(dir, name, O_RDONLY | O_SYMLINK | O_NONBLOCK | O_CLOEXEC);
    n = flistxattr(cfd, buf, sizeof buf, 0);
    n += fgetxattr(cfd, "com.apple.metadata:com_apple_backup_excludeItem", buf, sizeof buf, 0, 0);
    n += listxattr(name, buf, sizeof buf, XATTR_NOFOLLOW);
    n += getxattr(name, "n", buf, sizeof buf, 0, XATTR_NOFOLLOW);
    n += setxattr(name, "n", buf, 1, 0, XATTR_NOFOLLOW);
    n += fsetxattr(fd, "n", buf, 1, 0, 0);
    n += removexattr(name, "n", XATTR_NOFOLLOW);
    if (errno == ENOATTR || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ERANGE) n++;
    /* FileDescriptor */
    struct stat st; n += fstat(fd, &st); n += fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW);
    struct timespec m = st.st_mtimespec; n += (ssize_t)m.tv_sec;
    n += (ssize_t)st.st_blocks + (ssize_t)st.st_nlink + (ssize_t)st.st_ino + st.st_dev;
    struct timespec times[2] = {{0, UTIME_NOW}, {1, 2}};
    n += futimens(fd, times); n += utimensat(dir, name, times, AT_SYMLINK_NOFOLLOW);
    struct statvfs fs; n += fstatvfs(fd, &fs); unsigned long long freeb = (unsigned long long)fs.f_bavail * fs.f_frsize; n += (ssize_t)freeb;
    n += fchmod(fd, 0600); n += dup(fd);
    /* FileDescriptor+Directory */
    DIR *d = fdopendir(dup(fd)); struct dirent *e = readdir(d); n += offsetof(struct dirent, d_name); n += e ? strlen(e->d_name) : 0; closedir(d);
    n += mkdirat(dir, name, 0700); n += mkfifoat(dir, name, 0600); n += symlinkat("t", dir, name);
    n += linkat(dir, name, dir, "y", 0); n += renameat(dir, name, dir, "y"); n += unlinkat(dir, name, AT_REMOVEDIR);
    n += readlinkat(dir, name, buf, sizeof buf);
    /* FileDescriptor+IO */
    n += pread(fd, buf, 1, 0); n += pwrite(fd, buf, 1, 0); n += lseek(fd, 0, SEEK_DATA) + lseek(fd, 0, SEEK_HOLE); n += ftruncate(fd, 0);
    /* Signals */
    struct sigaction old; n += sigaction(SIGXCPU, NULL, &old); signal(SIGVTALRM, handler); n += SIGXFSZ + SIGPROF + SIGUSR1 + SIGALRM;
    int maxfiles = 0; size_t maxsize = sizeof maxfiles; n += sysctlbyname("kern.maxfilesperproc", &maxfiles, &maxsize, NULL, 0);
    struct rlimit rl; n += getrlimit(RLIMIT_NOFILE, &rl); rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536; n += setrlimit(RLIMIT_NOFILE, &rl);
    /* Terminal */
    struct winsize ws; n += ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
    /* AtomicFile, Paths */
    char tmpl[] = "/tmp/x.sandbox-audit-XXXXXX"; n += mkstemp(tmpl); n += fchown(fd, st.st_uid, st.st_gid); n += fsync(fd);
    char *r = realpath(name, NULL); free(r); n += access(name, R_OK | X_OK);
    /* Subprocess (xcrun): a pipe, posix_spawn in a process group of its own, poll with a deadline */
    int ends[2]; n += pipe(ends); n += fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t actions; posix_spawnattr_t attributes;
    n += posix_spawn_file_actions_init(&actions) + posix_spawnattr_init(&attributes);
    n += posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    n += posix_spawn_file_actions_adddup2(&actions, ends[1], 1) + posix_spawn_file_actions_addclose(&actions, ends[0]);
    n += posix_spawnattr_setflags(&attributes, (short)POSIX_SPAWN_SETPGROUP) + posix_spawnattr_setpgroup(&attributes, 0);
    char *argv[] = { strdup("xcrun"), NULL }; pid_t pid = 0;
    n += posix_spawn(&pid, argv[0], &actions, &attributes, argv, *_NSGetEnviron()); free(argv[0]);
    n += posix_spawn_file_actions_destroy(&actions) + posix_spawnattr_destroy(&attributes);
    struct pollfd poller = { .fd = ends[0], .events = POLLIN, .revents = 0 }; n += poll(&poller, 1, 1000);
    int status = 0; n += waitpid(pid, &status, WNOHANG); n += kill(-pid, SIGKILL); n += usleep(5000);
    struct timespec t; n += clock_gettime(CLOCK_MONOTONIC, &t);
    if (errno == EAGAIN || errno == ENOSYS) n++;
    /* Names the Swift code uses bare: libc calls, or its own methods named alike (both are checked) */
    n += read(fd, buf, 1) + write(fd, buf, 1); n += close(dup(fd)); n += open(name, O_RDONLY | O_CLOEXEC);
    n += lstat(name, &st) + link(name, "y") + rename(name, "y") + unlink(name) + lseek(fd, 0, SEEK_SET);
    n += isatty(STDERR_FILENO); n += getenv("HOME") != NULL; n += strerror(EINTR) != NULL;
    n += (ssize_t)geteuid() + (ssize_t)getegid(); n += memcmp(buf, buf, 1); n += format(buf, "%.*f", 2, 1.5);
    if (errno == EEXIST || errno == EINTR || errno == EINVAL || errno == ENAMETOOLONG || errno == ENOSPC || errno == ENXIO || errno == EPERM) n++;
    /* ArchiveReader's source: a failed read's errno, and lseek(2)'s arithmetic done on a position */
    n += lseek(fd, 0, SEEK_CUR) + lseek(fd, 0, SEEK_END); if (errno == EBADF || errno == EIO) n++;
    /* ManifestVFS's xFullPathname: the name copied with its NUL into SQLite's buffer */
    n += memcpy(buf, name, strlen(name) + 1) != NULL;
    mode_t kind = st.st_mode & S_IFMT;
    n += kind == S_IFREG || kind == S_IFDIR || kind == S_IFLNK || kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR || kind == S_IFBLK;
    if (n == 12345) _exit(2);
    return (int)n;
}
