/*
 * tbfile.c - the handle's sector files as descriptors: opened within a
 * budget, kept in a list by last use, opened again (and checked to be the
 * same file) when a read needs one that was closed, and read with
 * mmtb_file_pread.  The handle (tbopen.c), the block cache (tbcache.c) and
 * the verifier (tbverify.c) call down to it; it calls nothing of theirs.
 */
#include "tbinternal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A game has thousands of sector files (Lasker Morris 2,482) and a process
 * commonly a limit of 1024 descriptors.  The handle keeps the files it read
 * last open, at most fd_budget of them idle (a quarter of the process's
 * limit when the handle opens, 4 to 4096), in a list by last use; the
 * others are opened again when read.  A read holds its file (fd_users) so
 * that it is never closed under it.  All under fd_lock.
 */
#define FD_BUDGET_MAX 4096

static int fd_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return FD_BUDGET_MAX;
    rlim_t quarter = rl.rlim_cur / 4;
    return quarter < 4 ? 4 : quarter > FD_BUDGET_MAX ? FD_BUDGET_MAX : (int)quarter;
}

void tb_files_init(mmtb_tb *tb)
{
    tb->fd_budget = fd_budget();
    tb->fd_head = tb->fd_tail = -1;
    for (int i = 0; tb->sec && i < tb->n; i++) {
        tb->sec[i].fd = -1;
        tb->sec[i].fd_prev = tb->sec[i].fd_next = -1;
    }
}

void tb_files_close(mmtb_tb *tb)
{
    for (int i = 0; tb->sec && i < tb->n; i++)
        if (tb->sec[i].fd >= 0)
            close(tb->sec[i].fd);
}

static void fd_unlink(mmtb_tb *tb, struct tb_sector *sec)
{
    if (sec->fd_prev >= 0)
        tb->sec[sec->fd_prev].fd_next = sec->fd_next;
    else
        tb->fd_head = sec->fd_next;
    if (sec->fd_next >= 0)
        tb->sec[sec->fd_next].fd_prev = sec->fd_prev;
    else
        tb->fd_tail = sec->fd_prev;
    sec->fd_prev = sec->fd_next = -1;
}

static void fd_push_front(mmtb_tb *tb, struct tb_sector *sec)
{
    int i = (int)(sec - tb->sec);
    sec->fd_prev = -1;
    sec->fd_next = tb->fd_head;
    if (tb->fd_head >= 0)
        tb->sec[tb->fd_head].fd_prev = i;
    else
        tb->fd_tail = i;
    tb->fd_head = i;
}

/* Close sec's open file and take it off the list. */
static void fd_close(mmtb_tb *tb, struct tb_sector *sec)
{
    fd_unlink(tb, sec);
    close(sec->fd);
    sec->fd = -1;
    tb->fd_open--;
}

/* Close idle files, least recently used first, until at most keep are
 * open (files in use stay open). */
static void fd_trim(mmtb_tb *tb, int keep)
{
    int i = tb->fd_tail;
    while (i >= 0 && tb->fd_open > keep) {
        struct tb_sector *sec = &tb->sec[i];
        int prev = sec->fd_prev;
        if (sec->fd_users == 0)
            fd_close(tb, sec);
        i = prev;
    }
}

/* When the process is out of descriptors, this handle's idle files are
 * closed and the open is tried once more. */
int tb_file_open(mmtb_tb *tb, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
        pthread_mutex_lock(&tb->fd_lock);
        fd_trim(tb, 0);
        pthread_mutex_unlock(&tb->fd_lock);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    return fd;
}

void tb_file_adopt(mmtb_tb *tb, struct tb_sector *sec, int fd)
{
    pthread_mutex_lock(&tb->fd_lock);
    sec->fd = fd;
    fd_push_front(tb, sec);
    tb->fd_open++;
    fd_trim(tb, tb->fd_budget);
    pthread_mutex_unlock(&tb->fd_lock);
}

void tb_file_drop(mmtb_tb *tb, struct tb_sector *sec)
{
    pthread_mutex_lock(&tb->fd_lock);
    if (sec->fd >= 0)
        fd_close(tb, sec);
    pthread_mutex_unlock(&tb->fd_lock);
}

/* Open sector sec's file again: it must be the file load_sector checked,
 * by size and footer (whose hash covers every other byte). */
static int fd_reopen(mmtb_tb *tb, const struct tb_sector *sec, int *out, char *detail, size_t dlen)
{
    char name[48], path[4096];
    mmtb_tf_sector_filename(sec->s, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", tb->dir, name);
    int fd = tb_file_open(tb, path);
    if (fd < 0) {
        snprintf(detail, dlen, "%s: cannot be opened again: %s", name, strerror(errno));
        return MMTB_ERR_IO;
    }
    struct stat st;
    uint8_t fb[MMTB_TF_FOOTER_SIZE];
    struct mmtb_tf_footer f;
    int rc = fstat(fd, &st) == 0 ? MMTB_OK : MMTB_ERR_IO;
    if (rc == MMTB_OK && (uint64_t)st.st_size != sec->l.file_size)
        rc = MMTB_ERR_CORRUPT;
    if (rc == MMTB_OK)
        rc = mmtb_file_pread(fd, fb, sizeof fb, sec->l.footer_off);
    if (rc == MMTB_OK)
        rc = mmtb_tf_footer_decode(fb, sizeof fb, &sec->h, &f);
    if (rc == MMTB_OK && f.file_hash != sec->footer.file_hash)
        rc = MMTB_ERR_CORRUPT;
    if (rc != MMTB_OK) {
        close(fd);
        snprintf(detail, dlen, "%s: %s", name,
                 rc == MMTB_ERR_IO ? "read error on opening it again"
                                   : "replaced or changed since the handle opened it");
        return rc == MMTB_ERR_IO ? rc : MMTB_ERR_CORRUPT;
    }
    *out = fd;
    return MMTB_OK;
}

int tb_file_acquire(const mmtb_tb *ctb, int i, int *fd, char *detail, size_t dlen)
{
    mmtb_tb *tb = (mmtb_tb *)ctb; /* the list of open files only */
    struct tb_sector *sec = &tb->sec[i];
    pthread_mutex_lock(&tb->fd_lock);
    if (sec->fd >= 0) {
        sec->fd_users++;
        if (tb->fd_head != i) {
            fd_unlink(tb, sec);
            fd_push_front(tb, sec);
        }
        *fd = sec->fd;
        pthread_mutex_unlock(&tb->fd_lock);
        return MMTB_OK;
    }
    pthread_mutex_unlock(&tb->fd_lock);
    /* open outside the lock; two threads may race, the second file closes */
    int nfd;
    int rc = fd_reopen(tb, sec, &nfd, detail, dlen);
    if (rc != MMTB_OK)
        return rc;
    pthread_mutex_lock(&tb->fd_lock);
    if (sec->fd >= 0) {
        close(nfd);
        fd_unlink(tb, sec);
    } else {
        sec->fd = nfd;
        tb->fd_open++;
    }
    sec->fd_users++;
    fd_push_front(tb, sec);
    *fd = sec->fd;
    fd_trim(tb, tb->fd_budget);
    pthread_mutex_unlock(&tb->fd_lock);
    return MMTB_OK;
}

void tb_file_release(const mmtb_tb *ctb, int i)
{
    mmtb_tb *tb = (mmtb_tb *)ctb;
    pthread_mutex_lock(&tb->fd_lock);
    tb->sec[i].fd_users--;
    pthread_mutex_unlock(&tb->fd_lock);
}

int tb_file_read(const mmtb_tb *tb, int i, void *buf, size_t n, uint64_t off, char *detail,
                 size_t dlen)
{
    int fd;
    int rc = tb_file_acquire(tb, i, &fd, detail, dlen);
    if (rc != MMTB_OK)
        return rc;
    rc = mmtb_file_pread(fd, buf, n, off);
    tb_file_release(tb, i);
    return rc;
}
