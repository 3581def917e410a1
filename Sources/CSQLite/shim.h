#include <sqlite3.h>

/// Process-wide settings, applied once before the first connection opens (sqlite3_config is variadic,
/// so Swift cannot call it directly). Memory statistics off: with them on, every allocation SQLite
/// makes takes one global mutex to count bytes that Fauxth never reads, and both event loops allocate.
static inline int fauxth_sqlite3_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

/// Writes `count` bytes at `bytes` to `fd` from a forked child and answers the child's pid (or -1 when fork
/// fails; the caller then writes them itself). The child is a copy-on-write image of the process at the fork,
/// so the store's lock is held only for the fork, not for the write: a save of a million users stopped every
/// request for as long as the write took. The child exits 0, or with the errno that stopped it.
///
/// C, not Swift, because a child forked from a multi-threaded process may only make async-signal-safe calls
/// (another thread may have held a lock, malloc's included, at the fork): this code makes system calls and
/// nothing else, and no Swift runtime code runs in the child.
static inline pid_t fauxth_write_in_child(const void *bytes, size_t count, int fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
#ifdef __linux__
    // Dies with the server: a kill -9 must not leave a writer behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(ECHILD);
#endif
    // Only the file stays open. The child holds copies of every descriptor, and a client connection the
    // server closes would stay open (no FIN sent) and the port held until the child exits.
    if (fd != 3) {
        if (dup2(fd, 3) < 0) _exit(errno ? errno : EIO);
        fd = 3;
    }
    long closed = -1;
#if defined(__linux__) && defined(SYS_close_range)
    closed = syscall(SYS_close_range, 4U, ~0U, 0U);
#endif
    if (closed != 0) {
        long limit = sysconf(_SC_OPEN_MAX);
        for (long other = 4; other < (limit > 0 ? limit : 65536); other++) close((int)other);
    }
    const char *at = (const char *)bytes;
    size_t done = 0;
    while (done < count) {
        // 8 MiB at a time: one write of a whole 1 GB image took 4 s here, against 0.3 s in chunks.
        size_t chunk = count - done < ((size_t)8 << 20) ? count - done : ((size_t)8 << 20);
        ssize_t wrote = write(fd, at + done, chunk);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) _exit(wrote < 0 && errno ? (errno & 0xff) : EIO);
        done += (size_t)wrote;
    }
    _exit(0);
}
