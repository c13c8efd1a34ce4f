/*
 * ledger.c - verify's record of clean sectors (ledger.h).
 */
#define _GNU_SOURCE
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sector_index.h"
#include "helpers.h"
#include "tablefile.h"
#include "tablewrite.h"

#define LEDGER_MAGIC "mmtb-verify-ledger 1"

struct entry {
    char name[24];
    uint64_t identity, positions;
};

struct mmtb_ledger {
    int fd;
    char *path;
    struct entry *e;
    size_t n, cap;
};

static int push(struct mmtb_ledger *l, const char *name, uint64_t identity, uint64_t positions)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct entry *e = realloc(l->e, cap * sizeof *e);
        if (!e)
            return MMTB_ERR_NOMEM;
        l->e = e;
        l->cap = cap;
    }
    struct entry *x = &l->e[l->n++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->identity = identity;
    x->positions = positions;
    return MMTB_OK;
}

/* One entry line (no newline): "SECTOR HEX16 POSITIONS". */
static bool parse_entry(const char *line, char name[24], uint64_t *identity, uint64_t *positions)
{
    char hex[24], num[24], extra;
    if (sscanf(line, "%23s %23s %23s %c", name, hex, num, &extra) != 3)
        return false;
    struct mmtb_sector s;
    char canon[32];
    if (mmtb_sector_parse(name, &s) != MMTB_OK)
        return false;
    mmtb_sector_format(s, canon, sizeof canon);
    if (strcmp(canon, name) || strlen(hex) != 16 || strspn(hex, "0123456789abcdef") != 16 ||
        !num[0] || strspn(num, "0123456789") != strlen(num) || strlen(num) > 19)
        return false;
    *identity = strtoull(hex, NULL, 16);
    *positions = strtoull(num, NULL, 10);
    return true;
}

/* Read the whole file; drop a last line without its newline (a write cut
 * short), then check the magic line and every entry. */
static int load(struct mmtb_ledger *l, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(l->fd, &st) != 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", l->path, strerror(errno));
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf)
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "%s: out of memory", l->path);
    if (mmtb_table_pread(l->fd, buf, size, 0) != MMTB_OK) {
        free(buf);
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot read it: %s", l->path, strerror(errno));
    }
    size_t keep = size;
    while (keep > 0 && buf[keep - 1] != '\n')
        keep--;
    if (keep != size && ftruncate(l->fd, (off_t)keep) != 0) {
        free(buf);
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot drop its cut-short last line: %s",
                    l->path, strerror(errno));
    }
    buf[keep] = 0;
    int rc = MMTB_OK;
    size_t lineno = 0;
    for (char *p = buf, *nl; rc == MMTB_OK && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        *nl = 0;
        lineno++;
        char name[24];
        uint64_t id, pos;
        if (lineno == 1) {
            if (strcmp(p, LEDGER_MAGIC))
                rc = mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                          "%s:1: not a verify ledger (expected '%s')", l->path, LEDGER_MAGIC);
        } else if (!parse_entry(p, name, &id, &pos)) {
            rc = mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                      "%s:%zu: expected 'SECTOR IDENTITY POSITIONS' (a sector such as 5-4 or "
                      "5-4-2-1, 16 lower-case hex digits, a count)",
                      l->path, lineno);
        } else if (push(l, name, id, pos) != MMTB_OK) {
            rc = mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "%s: out of memory", l->path);
        }
    }
    free(buf);
    if (rc == MMTB_OK && lineno == 0) { /* new, or only a cut-short first line */
        const char head[] = LEDGER_MAGIC "\n";
        if (pwrite(l->fd, head, sizeof head - 1, 0) != (ssize_t)(sizeof head - 1) ||
            fsync(l->fd) != 0)
            rc = mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", l->path, strerror(errno));
    }
    return rc;
}

int mmtb_ledger_open(struct mmtb_ledger **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    struct mmtb_ledger *l = calloc(1, sizeof *l);
    if (!l || !(l->path = strdup(path))) {
        free(l);
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "%s: out of memory", path);
    }
    l->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (l->fd < 0) {
        int rc = mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", path, strerror(errno));
        free(l->path);
        free(l);
        return rc;
    }
    int rc = MMTB_OK;
    if (flock(l->fd, LOCK_EX | LOCK_NB) != 0)
        rc = mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", path,
                  errno == EWOULDBLOCK ? "in use by another verify" : strerror(errno));
    if (rc == MMTB_OK)
        rc = load(l, err, errlen);
    if (rc != MMTB_OK) {
        mmtb_ledger_close(l);
        return rc;
    }
    *out = l;
    return MMTB_OK;
}

int64_t mmtb_ledger_find(const struct mmtb_ledger *l, const char *name, uint64_t identity)
{
    for (size_t k = l->n; k-- > 0;)
        if (l->e[k].identity == identity && !strcmp(l->e[k].name, name))
            return (int64_t)l->e[k].positions;
    return -1;
}

bool mmtb_ledger_has_name(const struct mmtb_ledger *l, const char *name)
{
    for (size_t k = 0; k < l->n; k++)
        if (!strcmp(l->e[k].name, name))
            return true;
    return false;
}

int mmtb_ledger_add(struct mmtb_ledger *l, const char *name, uint64_t identity,
                    uint64_t positions, char *err, size_t errlen)
{
    char line[96];
    int n = snprintf(line, sizeof line, "%s %016" PRIx64 " %" PRIu64 "\n", name, identity,
                     positions);
    /* one write: with O_APPEND the line lands whole or, if the process
     * dies inside it, as a cut-short last line that the next open drops */
    if (write(l->fd, line, (size_t)n) != n || fsync(l->fd) != 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot record sector %s: %s", l->path, name,
                    strerror(errno));
    if (push(l, name, identity, positions) != MMTB_OK)
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "%s: out of memory", l->path);
    return MMTB_OK;
}

void mmtb_ledger_close(struct mmtb_ledger *l)
{
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd); /* releases the lock */
    free(l->path);
    free(l->e);
    free(l);
}

/* Mix one sector's name and file (size and recorded hash, or "absent")
 * into st. */
static int mix_file(struct mmtb_xxh64_state *st, const char *dir, struct mmtb_sector s,
                    char *err, size_t errlen)
{
    char name[32], path[4096];
    mmtb_sector_format(s, name, sizeof name);
    mmtb_xxh64_update(st, name, strlen(name) + 1);
    mmtb_table_sector_path(dir, s, path, sizeof path);
    uint8_t rec[16] = {0};
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        mmtb_xxh64_update(st, "absent", 6);
        return MMTB_OK;
    }
    struct mmtb_tf_footer f;
    int rc = mmtb_table_file_footer(dir, s, &f, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    for (int k = 0; k < 8; k++) { /* little-endian, as everything on disk */
        rec[k] = (uint8_t)(f.file_size >> (8 * k));
        rec[8 + k] = (uint8_t)(f.file_hash >> (8 * k));
    }
    mmtb_xxh64_update(st, rec, sizeof rec);
    return MMTB_OK;
}

int mmtb_ledger_identity(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                         uint64_t *identity, char *err, size_t errlen)
{
    struct mmtb_xxh64_state st;
    mmtb_xxh64_init(&st, 0);
    struct mmtb_sector t[8];
    int nt = mmtb_sector_moves_to(v, s, t);
    int rc = mix_file(&st, dir, s, err, errlen);
    for (int k = 0; k < nt && rc == MMTB_OK; k++)
        rc = mix_file(&st, dir, t[k], err, errlen);
    *identity = mmtb_xxh64_digest(&st);
    return rc;
}
