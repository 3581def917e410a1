#include <sqlite3.h>

/// Process-wide settings, applied once before the first connection opens (sqlite3_config is variadic,
/// so Swift cannot call it directly). Memory statistics off: with them on, every allocation SQLite
/// makes takes one global mutex to count bytes that Fauxth never reads, and both event loops allocate.
static inline int fauxth_sqlite3_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

/// A digest of `count` bytes at `bytes` into `digest` (32 bytes); answers 1, or 0 when it could not be made. For the
/// snapshot's checksum (`fauxth_write_in_child`): a plain computation that takes no lock and allocates nothing.
typedef int (*fauxth_digest_fn)(const void *bytes, size_t count, uint8_t *digest);

/// Writes `count` bytes at `bytes` to `fd` from a forked child and answers the child's pid (or -1 when fork
/// fails; the caller then writes them itself). The child is a copy-on-write image of the process at the fork,
/// so the store's lock is held only for the fork, not for the write: a save of a million users stopped every
/// request for as long as the write took. The child exits 0, or with the errno that stopped it.
///
/// With a `digest` function and a `digest_fd` (a pipe's writing end), the child forks a second one, which digests
/// the same image while the first writes it and sends the 32 bytes down the pipe: the parent then need not read the
/// file back to make its checksum (a second pass over a gigabyte, after the write rather than beside it). Forked by
/// the child, not the server: only the first fork holds the store's lock. The writer waits for the digester, so when
/// the writer has exited, whatever digest there is is in the pipe.
///
/// C, not Swift, because a child forked from a multi-threaded process may only make async-signal-safe calls
/// (another thread may have held a lock, malloc's included, at the fork): this code makes system calls and
/// nothing else, and no Swift runtime code runs in the child; the digest is arithmetic on the image.
static inline pid_t fauxth_write_in_child(const void *bytes, size_t count, int fd, fauxth_digest_fn digest, int digest_fd) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
#ifdef __linux__
    // Dies with the server: a kill -9 must not leave a writer behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(ECHILD);
#endif
    // Only the file (and the digest's pipe) stay open. The child holds copies of every descriptor, and a client
    // connection the server closes would stay open (no FIN sent) and the port held until the child exits.
    if (digest_fd == 3) {
        int moved = dup(digest_fd);
        if (moved < 0) _exit(errno ? errno : EIO);
        digest_fd = moved;
    }
    if (fd != 3) {
        if (dup2(fd, 3) < 0) _exit(errno ? errno : EIO);
        fd = 3;
    }
    if (digest && digest_fd >= 0) {
        if (digest_fd != 4 && dup2(digest_fd, 4) < 0) _exit(errno ? errno : EIO);
        digest_fd = 4;
    } else {
        digest_fd = -1;
    }
    unsigned int first_other = digest_fd == 4 ? 5U : 4U;
    long closed = -1;
#if defined(__linux__) && defined(SYS_close_range)
    closed = syscall(SYS_close_range, first_other, ~0U, 0U);
#endif
    if (closed != 0) {
        long limit = sysconf(_SC_OPEN_MAX);
        for (long other = (long)first_other; other < (limit > 0 ? limit : 65536); other++) close((int)other);
    }
    pid_t digester = -1;
    if (digest_fd >= 0) {
        pid_t writer = getpid();
        digester = fork();
        if (digester == 0) {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != writer) _exit(ECHILD);
#endif
            uint8_t made[32];
            if (digest(bytes, count, made)) {
                size_t sent = 0;
                while (sent < sizeof made) {
                    ssize_t wrote = write(digest_fd, made + sent, sizeof made - sent);
                    if (wrote < 0 && errno == EINTR) continue;
                    if (wrote <= 0) break;
                    sent += (size_t)wrote;
                }
            }
            _exit(0);
        }
        // The writer keeps no end of the pipe: once both children are gone the parent reads the digest or nothing.
        close(digest_fd);
    }
    const char *at = (const char *)bytes;
    size_t done = 0;
    int failed = 0;
    while (done < count) {
        // 8 MiB at a time: one write of a whole 1 GB image took 4 s here, against 0.3 s in chunks.
        size_t chunk = count - done < ((size_t)8 << 20) ? count - done : ((size_t)8 << 20);
        ssize_t wrote = write(fd, at + done, chunk);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            failed = wrote < 0 && errno ? (errno & 0xff) : EIO;
            break;
        }
#if defined(__linux__) && defined(SYS_sync_file_range)
        // Starts the chunk's way to the disk now (SYNC_FILE_RANGE_WRITE, which does not wait), so the disk works while
        // the rest is written and the fsync after the write waits for the last chunks only, where it waited for the
        // whole gigabyte; the pages stay cached for a load that follows.
        syscall(SYS_sync_file_range, fd, (long long)done, (long long)wrote, 2);
#endif
        done += (size_t)wrote;
    }
    if (digester > 0) {
        if (failed) kill(digester, SIGKILL);
        int status;
        while (waitpid(digester, &status, 0) < 0 && errno == EINTR) {}
    }
    _exit(failed);
}
