/*
 * fuzz_tables.c - libFuzzer target: the table opener and block reader of
 * libmmtb (mmtb_tb_open, mmtb_ctx_create, the probes, mmtb_tb_verify_sector
 * and mmtb_tb_verify_file) on a table directory damaged by the input.
 * Real tables (three-diag, the whole game from the empty board, made once
 * by mmtb-gen, and a packed copy made by `mmtb-gen pack`, whose wins'
 * depths the probes find by search) are copied; the input picks a set and
 * one file (the MANIFEST or a sector file) and
 * patches it, truncates it or replaces it, then everything is probed.
 * Invariants: no crash; an answer that differs from the undamaged tables'
 * comes only with a problem found by the whole-file check; an input that
 * leaves the bytes unchanged gets every answer right and no problem.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "mmtb.h"
#include "mmtb_integrity.h"
#include "movegen.h"
#include "notation.h"
#include "tablefile.h"

#define NPOS 48
#define MAXFILES 16

static char work[2][160];                /* the copies the input damages: unpacked, packed */
static int nfiles;
static char names[MAXFILES][64];         /* sorted file names (the same in both sets) */
static uint8_t *orig[2][MAXFILES];       /* their undamaged bytes */
static size_t orig_len[2][MAXFILES];
static struct mmtb_pos pos[NPOS];        /* positions along random games */
static struct mmtb_value want[NPOS];     /* their values */
static int want_moves[NPOS];             /* their number of moves */

/* Write len bytes to DIR/name; false on failure. */
static bool write_file(const char *dir, const char *name, const uint8_t *b, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(b, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Read the whole of DIR/name into a malloc'd buffer. */
static uint8_t *read_file(const char *dir, const char *name, size_t *len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    FUZZ_ASSERT(f != NULL);
    struct stat st;
    FUZZ_ASSERT(fstat(fileno(f), &st) == 0);
    uint8_t *b = malloc((size_t)st.st_size + 1);
    FUZZ_ASSERT(b && fread(b, 1, (size_t)st.st_size, f) == (size_t)st.st_size);
    fclose(f);
    *len = (size_t)st.st_size;
    return b;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Make the tables, copy them to the work directory, and record the
 * undamaged answers for positions of random games from the empty board. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tables("three-diag", "--start");
    char packed[160], cmd[512];
    snprintf(packed, sizeof packed, "%s-packed", dir);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && '%s' pack -t '%s' --threads 1 --quiet", dir,
             packed, fuzz_gen_path(), packed);
    FUZZ_ASSERT(system(cmd) == 0);
    DIR *d = opendir(dir);
    FUZZ_ASSERT(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && nfiles < MAXFILES)
            snprintf(names[nfiles++], sizeof names[0], "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)nfiles, sizeof names[0], cmp_names);
    for (int set = 0; set < 2; set++) {
        snprintf(work[set], sizeof work[set], "%s-work%d", dir, set);
        FUZZ_ASSERT(mkdir(work[set], 0755) == 0);
        for (int i = 0; i < nfiles; i++) {
            orig[set][i] = read_file(set ? packed : dir, names[i], &orig_len[set][i]);
            FUZZ_ASSERT(write_file(work[set], names[i], orig[set][i], orig_len[set][i]));
        }
    }

    mmtb_tb *tb;
    mmtb_ctx *ctx;
    FUZZ_ASSERT(mmtb_tb_open(&tb, work[0], NULL) == MMTB_OK);
    FUZZ_ASSERT(mmtb_ctx_create(&ctx, tb, 0) == MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    static struct mmtb_move mv[MMTB_MAX_MOVES];
    uint64_t rng = 19;
    struct mmtb_pos p;
    char err[200];
    for (int i = 0; i < NPOS; i++) {
        if (i % 12 == 0)
            FUZZ_ASSERT(mmtb_pos_parse(v, "- - w 3 3", &p, err, sizeof err) == MMTB_OK);
        pos[i] = p;
        FUZZ_ASSERT(mmtb_probe(ctx, &p, &want[i]) == MMTB_OK);
        int n = mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, mv) : 0;
        want_moves[i] = n;
        if (n > 0) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &mv[(rng >> 33) % (uint64_t)n], &q);
            p = q;
        } else {
            FUZZ_ASSERT(mmtb_pos_parse(v, "- - w 3 3", &p, err, sizeof err) == MMTB_OK);
        }
    }
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    /* the packed set gives the same answers */
    FUZZ_ASSERT(mmtb_tb_open(&tb, work[1], NULL) == MMTB_OK);
    FUZZ_ASSERT(mmtb_ctx_create(&ctx, tb, 0) == MMTB_OK);
    for (int i = 0; i < NPOS; i++) {
        struct mmtb_value val;
        FUZZ_ASSERT(mmtb_probe(ctx, &pos[i], &val) == MMTB_OK);
        FUZZ_ASSERT(val.wdl == want[i].wdl && val.dtw == want[i].dtw);
    }
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return 0;
}

/*
 * Input: byte 0 picks the file (sorted names: the sector files, then
 * MANIFEST), byte 1 holds flags (bit 0: open with MMTB_OPEN_VERIFY; bit 1:
 * the rest of the input is the whole file; bit 2: truncate the file to the
 * next two bytes' value modulo its length; bit 3: a one-block cache; bit 4:
 * the packed set), then
 * patches of 4 bytes each: a 3-byte offset (modulo the length) and the byte
 * to write there.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int k = data[0] % nfiles;
    unsigned flags = data[1];
    int set = flags >> 4 & 1;
    const char *wdir = work[set];
    const uint8_t *const *org = (const uint8_t *const *)orig[set];
    const size_t *olen = orig_len[set];
    const uint8_t *rest = data + 2;
    size_t nrest = size - 2;
    uint8_t *b;
    size_t len;
    if (flags & 2) {
        len = nrest;
        b = malloc(len + 1);
        FUZZ_ASSERT(b != NULL);
        memcpy(b, rest, len);
    } else {
        len = olen[k];
        b = malloc(len + 1);
        FUZZ_ASSERT(b != NULL);
        memcpy(b, org[k], len);
        if ((flags & 4) && nrest >= 2) {
            len = len ? ((size_t)rest[0] | (size_t)rest[1] << 8) % len : 0;
            rest += 2;
            nrest -= 2;
        }
        for (; nrest >= 4 && len > 0; rest += 4, nrest -= 4) {
            size_t off = ((size_t)rest[0] | (size_t)rest[1] << 8 | (size_t)rest[2] << 16) % len;
            b[off] = rest[3];
        }
    }
    bool unchanged = len == olen[k] && !memcmp(b, org[k], len);
    FUZZ_ASSERT(write_file(wdir, names[k], b, len));
    free(b);

    mmtb_tb *tb = NULL;
    char err[256] = "";
    struct mmtb_tb_opts o = {0};
    o.flags = flags & 1 ? MMTB_OPEN_VERIFY : 0;
    o.err = err;
    o.errlen = sizeof err;
    int rc = mmtb_tb_open(&tb, wdir, &o);
    if (rc != MMTB_OK) {
        FUZZ_ASSERT(!unchanged && tb == NULL && err[0] != '\0');
        FUZZ_ASSERT(rc == MMTB_ERR_CORRUPT || rc == MMTB_ERR_UNSUPPORTED ||
                    rc == MMTB_ERR_MISMATCH || rc == MMTB_ERR_MISSING || rc == MMTB_ERR_IO ||
                    rc == MMTB_ERR_PARSE || rc == MMTB_ERR_INVALID);
    } else {
        mmtb_ctx *ctx;
        FUZZ_ASSERT(mmtb_ctx_create(&ctx, tb, flags & 8 ? 1 : 0) == MMTB_OK);
        static struct mmtb_move_value mv[MMTB_MAX_MOVES];
        int wrong = 0;
        for (int i = 0; i < NPOS; i++) {
            struct mmtb_value val;
            int wdl;
            if (mmtb_probe(ctx, &pos[i], &val) == MMTB_OK)
                wrong += val.wdl != want[i].wdl || val.dtw != want[i].dtw;
            if (mmtb_probe_wdl(ctx, &pos[i], &wdl) == MMTB_OK)
                wrong += wdl != want[i].wdl;
            if (i % 4 == 0) {
                int n = mmtb_probe_moves(ctx, &pos[i], mv, MMTB_MAX_MOVES);
                if (n >= 0) {
                    FUZZ_ASSERT(n == want_moves[i]);
                    if (n > 0)
                        wrong += mv[0].value.wdl != want[i].wdl || mv[0].value.dtw != want[i].dtw;
                }
            }
            FUZZ_ASSERT(mmtb_ctx_error(ctx) != NULL);
        }
        /* The whole-file checks: of the damaged sector only, or of every
         * sector when the MANIFEST was changed (the other files are the
         * undamaged ones, checked clean once: checking them again takes time
         * and covers nothing new). */
        int problems = 0;
        bool manifest = strcmp(names[k], "MANIFEST") == 0;
        for (int i = 0; i < mmtb_tb_sector_count(tb); i++) {
            struct mmtb_sector_info info;
            FUZZ_ASSERT(mmtb_tb_sector_info(tb, i, &info) == MMTB_OK);
            char fname[64];
            mmtb_tf_sector_filename(info.sector, fname, sizeof fname);
            if (!manifest && strcmp(fname, names[k]) != 0)
                continue;
            struct mmtb_verify_result res;
            struct mmtb_verify_opts vo = {0};
            vo.read_bytes = 4096; /* small reads: more of them, and less to allocate */
            FUZZ_ASSERT(mmtb_tb_verify_file(tb, i, &vo, &res) == MMTB_OK);
            problems += res.problems;
            char e2[200];
            if (mmtb_tb_verify_sector(tb, info.sector, e2, sizeof e2) != MMTB_OK)
                problems++;
        }
        if (unchanged)
            FUZZ_ASSERT(wrong == 0 && problems == 0);
        if (wrong)
            FUZZ_ASSERT(problems > 0);
        mmtb_ctx_free(ctx);
        mmtb_tb_close(tb);
    }
    FUZZ_ASSERT(write_file(wdir, names[k], org[k], olen[k]));
    return 0;
}
