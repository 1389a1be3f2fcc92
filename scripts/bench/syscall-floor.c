/*
 * The floor under `sandbox-audit scan` on Linux, for scripts/benchmark.sh: the system calls
 * a scan cannot do without, and nothing else. It lists every folder (getdents64 through
 * readdir), calls fstatat(2) and listxattrat(2) (Linux 6.13; llistxattr(2) through
 * /proc/self/fd before that) on every entry, and opens every folder below, on THREADS threads
 * that take the folders two levels down in turn, as the scan's walk does. It keeps nothing,
 * classifies nothing and prints only the number of entries seen.
 *
 * Build: cc -O2 -pthread -o syscall-floor syscall-floor.c
 * Usage: syscall-floor DIR [THREADS]   (THREADS: 1 to 64, default 2)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif

static atomic_long entries;
static atomic_int listxattrat_missing;

static int is_dot(const char *name) { return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])); }

/* The entry's attribute names, as the scan lists them (the list itself is not looked at). */
static void list_attributes(int dir, const char *name) {
    char names[1024];
    if (!atomic_load(&listxattrat_missing)) {
        if (syscall(SYS_listxattrat, dir, name, AT_SYMLINK_NOFOLLOW, names, sizeof names) >= 0 || errno != ENOSYS) return;
        atomic_store(&listxattrat_missing, 1);
    }
    char path[4096];
    snprintf(path, sizeof path, "/proc/self/fd/%d/%s", dir, name);
    llistxattr(path, names, sizeof names);
}

/* Lists the open folder `fd` (closed here) and, depth first, every folder below it. */
static void walk(int fd, int depth_left) {
    DIR *d = fdopendir(fd);
    if (!d) { close(fd); return; }
    struct dirent *e;
    long seen = 0;
    while ((e = readdir(d))) {
        if (is_dot(e->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        list_attributes(dirfd(d), e->d_name);
        seen++;
        if (S_ISDIR(st.st_mode) && depth_left != 0) {
            int child = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child >= 0) walk(child, depth_left - 1);
        }
    }
    atomic_fetch_add(&entries, seen);
    closedir(d);
}

/* The folders two levels down, the workers' tasks (the levels above are listed first). */
static char **tasks;
static size_t task_count, task_capacity;
static atomic_size_t next_task;
static const char *root;

static void add_task(const char *path) {
    if (task_count == task_capacity) {
        task_capacity = task_capacity ? task_capacity * 2 : 1024;
        tasks = realloc(tasks, task_capacity * sizeof *tasks);
        if (!tasks) { perror("syscall-floor"); exit(2); }
    }
    tasks[task_count++] = strdup(path);
}

/* Lists `path` (one of the top two levels): its entries counted, its folders handed on. */
static void list_top(const char *path, int level) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    DIR *d = fdopendir(fd);
    if (!d) { close(fd); return; }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (is_dot(e->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        list_attributes(dirfd(d), e->d_name);
        atomic_fetch_add(&entries, 1);
        if (!S_ISDIR(st.st_mode)) continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (level == 0) list_top(child, 1); else add_task(child);
    }
    closedir(d);
}

static void *worker(void *unused) {
    (void)unused;
    size_t i;
    while ((i = atomic_fetch_add(&next_task, 1)) < task_count) {
        int fd = open(tasks[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) walk(fd, -1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) { fprintf(stderr, "usage: syscall-floor DIR [THREADS]\n"); return 2; }
    root = argv[1];
    int threads = argc == 3 ? atoi(argv[2]) : 2;
    if (threads < 1 || threads > 64) { fprintf(stderr, "syscall-floor: THREADS must be 1 to 64\n"); return 2; }
    list_top(root, 0);
    pthread_t t[64];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    printf("%ld entries\n", (long)atomic_load(&entries));
    return 0;
}
