/*
 * fileio.c - the pread loop and the whole-file read shared by libmmtb and
 * the solver (fileio.h), so that both read the MANIFEST the same way and
 * give the same status for the same fault.  POSIX only; no threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int mmtb_file_pread(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return MMTB_ERR_IO;
        if (r == 0)
            return MMTB_ERR_CORRUPT;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return MMTB_OK;
}

/* The size is measured first so that one allocation and one pread do;
 * a directory or a FIFO is refused before it is read. */
int mmtb_file_slurp(const char *path, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? MMTB_ERR_MISSING : MMTB_ERR_IO;
    struct stat st;
    int rc = MMTB_OK;
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rc = MMTB_ERR_IO;
    else if ((uint64_t)st.st_size > MMTB_SLURP_MAX)
        rc = MMTB_ERR_CORRUPT;
    else if (!(buf = malloc((size_t)st.st_size + 1)))
        rc = MMTB_ERR_NOMEM;
    else if (mmtb_file_pread(fd, buf, (size_t)st.st_size, 0) != MMTB_OK)
        rc = MMTB_ERR_IO; /* a read error, or the file shrank since fstat */
    close(fd);
    if (rc != MMTB_OK) {
        free(buf);
        return rc;
    }
    buf[st.st_size] = 0;
    *out = buf;
    *len = (size_t)st.st_size;
    return MMTB_OK;
}
