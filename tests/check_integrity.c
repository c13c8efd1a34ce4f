/*
 * check_integrity.c - corruption tests on real tables made by mmtb-gen (nine
 * up to 4 stones, three-diag from the empty board): one byte flipped at a
 * time over every region of every file (header, metadata, block tables,
 * each plane's blocks, footer, MANIFEST).  Each flip must be caught by the
 * whole-file check and never turn into a wrong value: a read or probe of the
 * damaged sector gives the undamaged copy's value or an error.  In-process
 * through libmmtb for speed; a sample of flips through mmtb-probe.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "sector_index.h"
#include "tablefile.h"
#include "testlib_cli.h"
#include "testlib_util.h"

static char tdir[256];          /* everything lives below it */
static char t4[300], t3d[300];  /* nine up to 4 stones; three-diag from the start */

/* ---------------------------------------------------------------------- */
/* Helpers                                                                */
/* ---------------------------------------------------------------------- */

static void copy_dir(const char *from, const char *to)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", to, from, to);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

/* Write one byte at off into path (in place: the flip and its undo). */
static void put_byte(const char *path, uint64_t off, uint8_t b)
{
    int fd = open(path, O_WRONLY);
    ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
    ck_assert(pwrite(fd, &b, 1, (off_t)off) == 1);
    close(fd);
}

/* A sampled slot of a sector with its undamaged value. */
struct sample {
    uint64_t slot;
    uint8_t wdl;
    uint16_t dtw;
};

/* The slots every flip of a sector reads back: the first slot of every
 * W/D/L block, a decided slot of every DTW block that has one, and random
 * canonical slots, with their values from the undamaged tables. */
struct sector_samples {
    struct mmtb_sector s;
    char file[48];
    int n;
    struct sample *v;
    int npos;                 /* positions for mmtb_probe */
    struct mmtb_pos pos[16];
    struct mmtb_value val[16];
};

static void make_samples(mmtb_tb *tb, mmtb_ctx *ctx, int si, struct sector_samples *ss)
{
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tb, si, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_OK);
    ss->s = info.sector;
    mmtb_tf_sector_filename(ss->s, ss->file, sizeof ss->file);
    const mmtb_index *ix = mmtb_tb_index(tb);
    uint64_t slots = info.stats.slots;
    uint8_t *w = malloc(slots);
    uint16_t *d = malloc(slots * sizeof *d);
    ck_assert(w && d);
    ck_assert_int_eq(mmtb_tb_read(ctx, ss->s, 0, slots, w, d), MMTB_OK);
    ss->v = malloc(sizeof *ss->v * (slots / 1024 + 200));
    ss->n = 0;
    uint64_t wb = (uint64_t)1 << MMTB_TF_WDL_BLOCK_LOG2, db = (uint64_t)1 << MMTB_TF_DTW_BLOCK_LOG2;
    for (uint64_t a = 0; a < slots; a += wb)
        ss->v[ss->n++] = (struct sample){a, w[a], d[a]};
    for (uint64_t a = 0; a < slots; a += db)
        for (uint64_t t = a; t < slots && t < a + db; t++)
            if (w[t] != 1 && mmtb_index_slot_is_canonical(ix, ss->s, t)) {
                ss->v[ss->n++] = (struct sample){t, w[t], d[t]};
                break;
            }
    unsigned seed = 12345u + (unsigned)si;
    for (int k = 0; k < 24; k++) {
        uint64_t t = (uint64_t)rand_r(&seed) * 65536u + (uint64_t)rand_r(&seed);
        t %= slots;
        ss->v[ss->n++] = (struct sample){t, w[t], d[t]};
    }
    /* Positions: canonical slots unranked, probed whole (rules included). */
    ss->npos = 0;
    for (int k = 0; k < 400 && ss->npos < 16; k++) {
        uint64_t t = ((uint64_t)rand_r(&seed) * 65536u + (uint64_t)rand_r(&seed)) % slots;
        if (!mmtb_index_slot_is_canonical(ix, ss->s, t))
            continue;
        struct mmtb_pos p = {{0, 0}, {ss->s.w_hand, ss->s.b_hand}, 0, 0, -1, -1, 0};
        mmtb_index_unrank(ix, ss->s, t, &p.stones[0], &p.stones[1]);
        if (mmtb_probe(ctx, &p, &ss->val[ss->npos]) != MMTB_OK)
            continue; /* e.g. a successor outside the solved game */
        ss->pos[ss->npos++] = p;
    }
    free(w);
    free(d);
}

/* Every sampled slot and position of the damaged sector: the undamaged
 * value or an error, never another value.  Returns how many reads failed. */
static int read_back(const char *dir, const struct sector_samples *ss, const char *what)
{
    mmtb_tb *tb = NULL;
    mmtb_ctx *ctx = NULL;
    if (mmtb_tb_open(&tb, dir, NULL) != MMTB_OK)
        return 1;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    int errors = 0;
    for (int k = 0; k < ss->n; k++) {
        uint8_t w = 9;
        uint16_t d = 9999;
        int rc = mmtb_tb_read(ctx, ss->s, ss->v[k].slot, 1, &w, &d);
        if (rc == MMTB_OK) {
            ck_assert_msg(w == ss->v[k].wdl && d == ss->v[k].dtw,
                          "%s: slot %llu reads %u/%u, undamaged %u/%u", what,
                          (unsigned long long)ss->v[k].slot, w, d, ss->v[k].wdl, ss->v[k].dtw);
        } else {
            ck_assert_msg(rc == MMTB_ERR_CORRUPT || rc == MMTB_ERR_MISMATCH ||
                              rc == MMTB_ERR_UNSUPPORTED,
                          "%s: slot %llu gives %d", what, (unsigned long long)ss->v[k].slot, rc);
            errors++;
        }
    }
    for (int k = 0; k < ss->npos; k++) {
        struct mmtb_value v = {7, 7};
        int rc = mmtb_probe(ctx, &ss->pos[k], &v);
        if (rc == MMTB_OK)
            ck_assert_msg(v.wdl == ss->val[k].wdl && v.dtw == ss->val[k].dtw,
                          "%s: position %d probes %d/%d, undamaged %d/%d", what, k, v.wdl, v.dtw,
                          ss->val[k].wdl, ss->val[k].dtw);
        else
            ck_assert_msg(rc == MMTB_ERR_CORRUPT || rc == MMTB_ERR_MISMATCH ||
                              rc == MMTB_ERR_UNSUPPORTED,
                          "%s: position %d gives %d", what, k, rc);
    }
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return errors;
}

/* Problems reported by mmtb_tb_verify_file, and whether each named the
 * damaged file. */
struct seen {
    const char *file;
    int problems, wrong_file;
};

static void on_problem(void *arg, const struct mmtb_verify_problem *p)
{
    struct seen *s = arg;
    s->problems++;
    if (strcmp(p->file, s->file) != 0 || !strstr(p->message, s->file))
        s->wrong_file++;
}

/* The whole-file check of sector si in dir: the number of problems, each
 * of which must name the file. */
static int verify(const char *dir, int si, const char *file)
{
    mmtb_tb *tb = NULL;
    if (mmtb_tb_open(&tb, dir, NULL) != MMTB_OK)
        return 1;
    struct seen s = {file, 0, 0};
    struct mmtb_verify_opts o = {on_problem, NULL, &s, 4096, 0}; /* small reads: more buffer moves */
    struct mmtb_verify_result res;
    ck_assert_int_eq(mmtb_tb_verify_file(tb, si, &o, &res), MMTB_OK);
    ck_assert_int_eq(res.problems, s.problems);
    ck_assert_msg(s.wrong_file == 0, "a problem of %s names another file", file);
    mmtb_tb_close(tb);
    return s.problems;
}

/* How a file is sampled: every byte when it has at most `small` bytes;
 * else every byte of the header and footer, every `meta_step`-th byte of
 * the metadata (descriptor, block tables) and `per_block` spread bytes of
 * each stored block. */
struct plan {
    size_t small;
    int meta_step, per_block;
    int files; /* sector files flipped (the first ones of the game), besides the MANIFEST */
};

/* The offsets to flip in file f of len bytes under plan pl. */
static int pick_offsets(const uint8_t *f, size_t len, const struct plan *pl, uint64_t *out,
                        int cap)
{
    size_t small = pl->small;
    int per_block = pl->per_block;
    int n = 0;
    if (len <= small) {
        for (size_t i = 0; i < len && n < cap; i++)
            out[n++] = i;
        return n;
    }
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    ck_assert_int_eq(mmtb_tf_header_decode(f, len, &h), MMTB_OK);
    ck_assert_int_eq(mmtb_tf_layout(&h, &l), MMTB_OK);
    for (uint64_t i = 0; i < l.meta_end && n < cap;
         i += i < MMTB_TF_HEADER_SIZE ? 1 : (uint64_t)pl->meta_step)
        out[n++] = i;
    for (int pl = 0; pl < 2; pl++) {
        const uint8_t *t = f + l.table_off[pl];
        uint64_t off = l.data_off[pl];
        for (uint64_t b = 0; b < l.nblocks[pl]; b++) {
            uint32_t cs = (uint32_t)t[16 * b] | (uint32_t)t[16 * b + 1] << 8 |
                          (uint32_t)t[16 * b + 2] << 16 | (uint32_t)t[16 * b + 3] << 24;
            for (int k = 0; k < per_block && cs && n < cap; k++)
                out[n++] = off + (uint64_t)k * (cs - 1) / (per_block > 1 ? per_block - 1 : 1);
            off += cs;
        }
    }
    for (uint64_t i = l.footer_off; i < len && n < cap; i++)
        out[n++] = i;
    return n;
}

/*
 * Flip bytes of every file of `good` (a copy is damaged, one byte at a
 * time): the MANIFEST must no longer open; a sector file must fail its
 * whole-file check naming it, and reads of its samples must give the
 * undamaged values or errors.  Returns the number of flips.
 */
static long flip_all(const char *good, const struct plan *pl)
{
    char work[400];
    snprintf(work, sizeof work, "%s-work", good);
    copy_dir(good, work);
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, good, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, (size_t)64 << 20), MMTB_OK);
    int ns = mmtb_tb_sector_count(tb);
    struct sector_samples *ss = calloc((size_t)ns, sizeof *ss);
    for (int i = 0; i < ns; i++)
        make_samples(tb, ctx, i, &ss[i]);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);

    long flips = 0, refused = 0;
    uint64_t *offs = malloc(sizeof *offs * 200000);
    for (int i = -1; i < ns && i < pl->files; i++) {
        char path[600], what[700];
        const char *file = i < 0 ? "MANIFEST" : ss[i].file;
        snprintf(path, sizeof path, "%s/%s", work, file);
        size_t len;
        uint8_t *f = tl_read_file(path, &len);
        struct plan every = {(size_t)-1, 1, 0, 0};
        int n = pick_offsets(f, len, i < 0 ? &every : pl, offs, 200000);
        for (int k = 0; k < n; k++) {
            uint64_t off = offs[k];
            uint8_t bad = (uint8_t)(f[off] ^ (1u << (k % 8)));
            snprintf(what, sizeof what, "%s byte %llu", file, (unsigned long long)off);
            put_byte(path, off, bad);
            if (i < 0) {
                mmtb_tb *t = NULL;
                int rc = mmtb_tb_open(&t, work, NULL);
                ck_assert_msg(rc != MMTB_OK, "%s: the damaged MANIFEST opens", what);
                refused++;
            } else {
                ck_assert_msg(verify(work, i, file) > 0, "%s: not caught", what);
                refused += read_back(work, &ss[i], what) > 0;
            }
            put_byte(path, off, f[off]);
            flips++;
        }
        free(f);
    }
    /* The undamaged copy still holds and reads back exactly. */
    for (int i = 0; i < ns; i++) {
        ck_assert_int_eq(verify(work, i, ss[i].file), 0);
        ck_assert_int_eq(read_back(work, &ss[i], "undamaged"), 0);
    }
    printf("check_integrity: %s: %ld flips caught by the whole-file check, %ld of them also "
           "refused by a sampled read\n",
           good, flips, refused);
    fflush(stdout);
    for (int i = 0; i < ns; i++)
        free(ss[i].v);
    free(ss);
    free(offs);
    return flips;
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                  */
/* ---------------------------------------------------------------------- */

/* three-diag's whole game (small files): every byte of the MANIFEST and of
 * the first three sector files. */
START_TEST(every_byte_of_three_diag)
{
    struct plan pl = {(size_t)-1, 1, 0, 3};
    ck_assert_int_ge(flip_all(t3d, &pl), 3000);
}
END_TEST

/* nine up to 4 stones, all four files and the MANIFEST: every byte of the
 * MANIFEST, headers and footers, every 8th of the metadata, 4 spread bytes
 * of every block of both planes. */
START_TEST(spread_bytes_of_nine_4)
{
    struct plan pl = {0, 8, 4, 4};
    ck_assert_int_ge(flip_all(t4, &pl), 4000);
}
END_TEST

/* The case: one byte flipped in the middle of 4-3.mmtb (a W/D/L
 * block).  Probes of 4-3 positions whose slot lies in that block fail and
 * name the file and block; positions with Black to move on the same stones
 * are sector 3-4 (side to move first) and never read 4-3.mmtb. */
START_TEST(middle_of_4_3_names_file_and_block)
{
    char work[400], path[500];
    snprintf(work, sizeof work, "%s-mid", t4);
    copy_dir(t4, work);
    snprintf(path, sizeof path, "%s/4-3.mmtb", work);
    size_t len;
    uint8_t *f = tl_read_file(path, &len);
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    ck_assert_int_eq(mmtb_tf_header_decode(f, len, &h), MMTB_OK);
    mmtb_tf_layout(&h, &l);
    /* Which block holds the middle byte (the planes' blocks in order)? */
    uint64_t mid = len / 2, off = l.data_off[0];
    int64_t blk = -1;
    for (uint64_t b = 0; b < l.nblocks[0]; b++) {
        const uint8_t *t = f + l.table_off[0] + 16 * b;
        uint32_t cs = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
                      (uint32_t)t[3] << 24;
        if (mid >= off && mid < off + cs)
            blk = (int64_t)b;
        off += cs;
    }
    ck_assert_msg(blk >= 0, "the middle of 4-3.mmtb is not in a W/D/L block");
    put_byte(path, mid, (uint8_t)(f[mid] ^ 0x10));

    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, work, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    const mmtb_index *ix = mmtb_tb_index(tb);
    struct mmtb_sector s43 = {4, 3, 0, 0};
    uint64_t first = (uint64_t)blk << h.wdl_block_log2, slot = first;
    while (!mmtb_index_slot_is_canonical(ix, s43, slot))
        slot++;
    struct mmtb_pos p = {{0, 0}, {0, 0}, 0, 0, -1, -1, 0};
    mmtb_index_unrank(ix, s43, slot, &p.stones[0], &p.stones[1]);
    struct mmtb_value v;
    ck_assert_int_eq(mmtb_probe(ctx, &p, &v), MMTB_ERR_CORRUPT);
    char want[64];
    snprintf(want, sizeof want, "4-3.mmtb: W/D/L block %lld of", (long long)blk);
    ck_assert_msg(strstr(mmtb_ctx_error(ctx), want), "error '%s'", mmtb_ctx_error(ctx));
    /* The same stones with Black to move: sector 3-4, answered. */
    struct mmtb_pos q = p;
    q.side = 1;
    ck_assert_int_eq(mmtb_probe(ctx, &q, &v), MMTB_OK);
    char text[MMTB_TEXT_MAX];
    mmtb_pos_format(mmtb_tb_variant(tb), &p, text, sizeof text);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);

    /* The command line: probe exits 2 naming file and block; integrity
     * exits 2 naming them too, in text and JSON. */
    struct tl_result r;
    tl_run(&r, NULL, "probe", "-t", work, text, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.err, want), "stderr: %s", r.err);
    tl_result_free(&r);
    tl_run(&r, NULL, "integrity", "-t", work, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.out, want) && strstr(r.out, "checksum mismatch"), "out: %s", r.out);
    tl_result_free(&r);
    tl_run(&r, NULL, "integrity", "-t", work, "--json", "--threads", "3", NULL);
    ck_assert_int_eq(r.code, 2);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    ck_assert_int_eq(tl_jget_u(j, "files"), 4);
    const struct tl_jv *pr = tl_jget(j, "problems");
    ck_assert(pr && pr->t == J_ARR && pr->n >= 1);
    ck_assert_str_eq(tl_jget_s(&pr->item[0], "file"), "4-3.mmtb");
    ck_assert_str_eq(tl_jget_s(&pr->item[0], "sector"), "4-3");
    ck_assert_str_eq(tl_jget_s(&pr->item[0], "plane"), "wdl");
    ck_assert_int_eq(tl_jget_u(&pr->item[0], "block"), (unsigned long long)blk);
    const struct tl_jv *ok = tl_jget(j, "ok");
    ck_assert(ok && ok->t == J_BOOL && !ok->b);
    tl_json_free(j);
    tl_result_free(&r);
    free(f);
}
END_TEST

/* The command line on intact tables, a MANIFEST flip, a listed file that
 * is missing, and bad usage. */
START_TEST(cli_exit_codes_and_names)
{
    struct tl_result r;
    char work[400], path[500];
    tl_run(&r, NULL, "integrity", "-t", t4, "--json", NULL);
    ck_assert_int_eq(r.code, 0);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert(j != NULL);
    ck_assert_int_eq(tl_jget_u(j, "files"), 4);
    /* bytes read = the sizes of the four files and the MANIFEST */
    unsigned long long sum = 0;
    const char *names[] = {"3-3.mmtb", "4-3.mmtb", "3-4.mmtb", "4-4.mmtb", "MANIFEST"};
    for (int i = 0; i < 5; i++) {
        size_t len;
        snprintf(path, sizeof path, "%s/%s", t4, names[i]);
        free(tl_read_file(path, &len));
        sum += len;
    }
    ck_assert_int_eq(tl_jget_u(j, "bytes"), sum);
    ck_assert(tl_jget(j, "ok")->b);
    ck_assert_int_eq(tl_jget(j, "problems")->n, 0);
    tl_json_free(j);
    tl_result_free(&r);

    snprintf(work, sizeof work, "%s-cli", t4);
    copy_dir(t4, work);
    snprintf(path, sizeof path, "%s/MANIFEST", work);
    size_t len;
    uint8_t *m = tl_read_file(path, &len);
    put_byte(path, len / 2, (uint8_t)(m[len / 2] ^ 1));
    tl_run(&r, NULL, "integrity", "-t", work, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.out, "MANIFEST"), "out: %s", r.out);
    tl_result_free(&r);
    put_byte(path, len / 2, m[len / 2]);
    free(m);

    snprintf(path, sizeof path, "%s/3-4.mmtb", work);
    ck_assert_int_eq(unlink(path), 0);
    tl_run(&r, NULL, "integrity", "-t", work, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.out, "3-4.mmtb: listed in MANIFEST but missing"), "out: %s", r.out);
    tl_result_free(&r);

    tl_run(&r, NULL, "integrity", NULL);
    ck_assert_int_eq(r.code, 1);
    tl_result_free(&r);
    tl_run(&r, NULL, "integrity", "-t", t4, "--threads", "0", NULL);
    ck_assert_int_eq(r.code, 1);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */

/* Run mmtb-gen -v VARIANT EXTRA... -o OUT --quiet; false when it fails. */
static bool gen(const char *variant, const char *a1, const char *a2, const char *out)
{
    char *argv[12];
    int n = 0;
    argv[n++] = GEN_BIN;
    argv[n++] = "-v";
    argv[n++] = (char *)variant;
    if (a1)
        argv[n++] = (char *)a1;
    if (a2)
        argv[n++] = (char *)a2;
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n++] = "--quiet";
    argv[n] = NULL;
    int pid = tl_spawn(argv, NULL);
    return pid > 0 && tl_wait(pid) == 0;
}

int main(void)
{
    /* the tables, made once by the real generator (no OpenMP in this process) */
    snprintf(tdir, sizeof tdir, "/tmp/check_integrity_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    snprintf(t4, sizeof t4, "%s/nine4", tdir);
    snprintf(t3d, sizeof t3d, "%s/three-diag", tdir);
    if (!gen("nine", "--max-stones", "4", t4) || !gen("three-diag", "--start", NULL, t3d)) {
        fprintf(stderr, "check_integrity: mmtb-gen failed to make the test tables\n");
        return EXIT_FAILURE;
    }

    Suite *s = suite_create("integrity");
    TCase *tc = tcase_create("flips");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_byte_of_three_diag);
    tcase_add_test(tc, spread_bytes_of_nine_4);
    suite_add_tcase(s, tc);
    TCase *tl = tcase_create("cli");
    tcase_set_timeout(tl, 120);
    tcase_add_test(tl, middle_of_4_3_names_file_and_block);
    tcase_add_test(tl, cli_exit_codes_and_names);
    suite_add_tcase(s, tl);

    return tl_run_suite(s, tdir, "check_integrity");
}
