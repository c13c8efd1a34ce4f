/*
 * cli.c - mmtb-gen's command line, shared by mmtb-gen and mmtb-gen-mpi:
 * the usage text and the parsing of the solve and verify options (cli.h).
 * Runs nothing itself.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sector_index.h"

static const char usage_gen[] =
    "usage: mmtb-gen -v VARIANT -o DIR [options]\n"
    "       mmtb-gen verify -t DIR [--sectors LIST] [--ledger FILE] [--by-rules]\n"
    "                       [--threads N] [--quiet] [--json] [--verbose]\n"
    "       mmtb-gen pack -t DIR [--level N] [--threads N] [--quiet] [--json]\n"
    "\n"
    "Solves a Morris variant by retrograde analysis and writes its tables to DIR.\n"
    "Without --start, solves the movement phase (no stones in hand).\n"
    "\n"
    "  -v, --variant NAME|FILE  built-in variant (nine, nine-nofly, nine-diag, lasker,\n"
    "                           morabaraba, twelve, twelve-immune, twelve-nine, shah,\n"
    "                           six, three, three-diag) or a descriptor file\n"
    "  -o, --out DIR            table directory (created; finished sectors are kept,\n"
    "                           so a rerun resumes)\n"
    "      --start [W,B]        solve the whole game from the empty board with W and B\n"
    "                           stones in hand (default: the variant's own numbers)\n"
    "      --max-stones N       movement phase: sectors with at most N stones a side\n"
    "      --sectors LIST       only these sectors and what they need, e.g. 3-3,4-3\n"
    "                           (movement w-b, or w-b-wh-bh with stones in hand)\n"
    "      --threads N          worker threads (default: all cores)\n"
    "      --memory LIMIT       refuse, before solving anything, a sector pair that would\n"
    "                           need more than LIMIT bytes (such as 512M, 2G; per rank\n"
    "                           with mmtb-gen-mpi; there a pair over LIMIT is solved\n"
    "                           by all ranks together when its part fits); a pair\n"
    "                           over it (without --memory, over 90% of the machine's\n"
    "                           memory) keeps its waiting outside results on disk\n"
    "                           first, in DIR, when that makes it fit\n"
    "      --buckets-on-disk    keep every pair's waiting outside results on disk\n"
    "      --split SLOTS        mmtb-gen-mpi: solve every pair of at least SLOTS slots\n"
    "                           (such as 50M) by all ranks together, each holding a\n"
    "                           part of its states\n"
    "      --level N            zstd level of both planes (default: 15 for W/D/L, 6 for depths)\n"
    "      --dtw-level N        zstd level of the depth plane only (12: a few % smaller,\n"
    "                           the write about twice as slow)\n"
    "      --checkpoint MIN     save a pair's progress through its levels to DIR every\n"
    "                           MIN minutes (default 30; 0: at every level; off:\n"
    "                           never), so that a rerun of a killed run goes on from\n"
    "                           there instead of the pair's start; `kill -USR1 PID`\n"
    "                           saves at the start of the next level\n"
    "      --stop-after TIME    once TIME has passed (2h50m, 90s; a number: minutes),\n"
    "                           save the pair under way at its next level and stop\n"
    "                           (exit 5), or start no new pair; rerun to go on\n"
    "      --verify-behind FILE verify each pair's sectors as soon as they are written,\n"
    "                           recording them in the ledger FILE (as verify --ledger);\n"
    "                           a rerun first verifies the solved sectors FILE lacks;\n"
    "                           mismatches stop the run (exit 3)\n"
    "      --pack-behind        with --verify-behind: pack each sector (as pack does) once\n"
    "                           it and every pair that reads it are verified, so that a\n"
    "                           whole game needs about half the disk; the tables can\n"
    "                           then not be extended or verified again\n"
    "      --quiet              no progress display and no per-sector lines\n"
    "      --json               print the summary as one JSON object\n"
    "      --plan               print each pair's slots, memory, expected bytes on disk\n"
    "                           and time, and the totals, then exit without solving\n"
    "                           (-o optional: with it, pairs solved there are marked;\n"
    "                           with --memory, exit 4 when a pair is over the limit)\n"
    "      --verbose            each pair's memory plan, phase times per sector (load,\n"
    "                           init, levels, write) and the share of the run done\n"
    "  -h, --help               this text\n"
    "\n"
    "verify re-derives every stored value of the sectors in DIR (or only of the\n"
    "sectors in --sectors LIST) from their successors, one ply forward. With\n"
    "--ledger FILE it records each sector it finds clean in FILE (created when\n"
    "absent), and a rerun with the same FILE skips the sectors recorded there\n"
    "whose file and successors' files are unchanged: an interrupted verification\n"
    "goes on where it stopped. --verbose: after each sector, the share of the\n"
    "positions done and the time left, on stderr. Positions with re-close\n"
    "restrictions are re-derived on the solver's move generator, grouped by their\n"
    "stones; --by-rules takes them one by one through the rules of the probe\n"
    "library instead (independent of the solver, about 1.6 times slower).\n"
    "\n"
    "pack rewrites the finished sector files in DIR to keep only the depths of\n"
    "losses (about half the size for a whole game): a probe then finds a win's\n"
    "depth by searching its moves, one ply. The W/D/L values are kept byte for\n"
    "byte; each file is replaced only once its packed copy has been read back.\n"
    "Packed tables answer every probe, but cannot be read by the solver or by\n"
    "verify (keep an unpacked copy to extend or verify). --level: zstd level of\n"
    "the packed depths (default 6).\n"
    "\n"
    "Exit codes: 0 done, 1 bad usage or input, 2 table or file problem,\n"
    "            3 (verify, --verify-behind) mismatches found, 4 not enough memory\n"
    "            (over --memory LIMIT, or an allocation failed), 5 stopped by\n"
    "            --stop-after (rerun to go on).\n";

/* A message on msg, when there is one to write to. */
static void say(FILE *msg, const char *fmt, ...)
{
    if (!msg)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(msg, fmt, ap);
    va_end(ap);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (!*s || *end || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

/* A count: digits with an optional K, M, G or T (powers of 1024), at least
 * min.  Returns 0, or -1 when s is not one. */
static int parse_scaled(const char *s, uint64_t *out, uint64_t min)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B') /* 2GiB, 2GB: the same here */
        end += *end == 'i' && end[1] == 'B' ? 2 : 1;
    if (*end || x > (UINT64_MAX >> shift) || (x << shift) < min)
        return -1;
    *out = (uint64_t)x << shift;
    return 0;
}

/* A duration: minutes, or numbers each with h, m or s ("2h50m", "90s",
 * "1.5h"), at least 0.  Returns 0 (*seconds set), or -1. */
static int parse_duration(const char *s, double *seconds)
{
    double total = 0;
    const char *p = s;
    do {
        char *end;
        errno = 0;
        double x = strtod(p, &end);
        if (end == p || errno || !(x >= 0 && x <= 1e7) || *p == '-' || *p == '+')
            return -1;
        double unit = 60; /* a bare number: minutes, as --checkpoint's */
        if (*end == 'h' || *end == 'm' || *end == 's') {
            unit = *end == 'h' ? 3600 : *end == 'm' ? 60 : 1;
            end++;
        } else if (*end || p != s) {
            return -1;
        }
        total += x * unit;
        p = end;
    } while (*p);
    *seconds = total;
    return 0;
}

/* A size in bytes, at least 1 MiB. */
static int parse_bytes(const char *s, uint64_t *out)
{
    return parse_scaled(s, out, (uint64_t)1 << 20);
}

/* Parse a comma-separated sector list ("3-3,4-3" or "w-b-wh-bh" items) into
 * out[0..cap); returns the count, or -1 after a message naming the bad item. */
static int parse_sectors(FILE *msg, const char *cmd, const char *text, struct mmtb_sector *out,
                         int cap)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) {
        say(msg, "%s: --sectors: list too long\n", cmd);
        return -1;
    }
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (n == cap || mmtb_sector_parse(tok, &out[n]) != MMTB_OK) {
            say(msg, "%s: --sectors: '%s' is not a sector (w-b or w-b-wh-bh)\n", cmd, tok);
            return -1;
        }
        n++;
    }
    if (n == 0)
        say(msg, "%s: --sectors: empty list\n", cmd);
    return n ? n : -1;
}

int gen_cli_exit_code(int rc)
{
    if (rc == MMTB_ERR_NOMEM)
        return 4;
    return (rc == MMTB_ERR_INVALID || rc == MMTB_ERR_PARSE || rc == MMTB_ERR_UNSUPPORTED) ? 1 : 2;
}

/* The options of the subcommands on a table directory (verify, pack). */
struct dir_opts {
    const char **dir;
    int *threads;
    bool *quiet, *json;
};

/*
 * Take argv[*i] when it is one of the options every subcommand sub has
 * (-h, -t DIR, --threads N, --quiet, --json), *i past its value.  Returns
 * 1 when taken, 0 when it is not one of them, or the exit code to end with:
 * 10 + 0 after --help, 10 + 1 after a bad value (said on msg).
 */
static int parse_dir_opt(const char *cmd, const char *sub, int argc, char **argv, int *i,
                         const struct dir_opts *d, FILE *out, FILE *msg)
{
    const char *a = argv[*i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        if (out)
            fputs(usage_gen, out);
        return 10;
    } else if ((!strcmp(a, "-t") || !strcmp(a, "--tables")) && *i + 1 < argc) {
        *d->dir = argv[++*i];
    } else if (!strcmp(a, "--threads") && *i + 1 < argc) {
        if (parse_int(argv[++*i], 1, 4096, d->threads)) {
            say(msg, "%s %s: --threads: expected a number 1..4096, got '%s'\n", cmd, sub,
                argv[*i]);
            return 11;
        }
    } else if (!strcmp(a, "--quiet")) {
        *d->quiet = true;
    } else if (!strcmp(a, "--json")) {
        *d->json = true;
    } else {
        return 0;
    }
    return 1;
}

/* `pack -t DIR [...]`: argv[0] is "pack". */
static int parse_pack(struct gen_cli *c, const char *cmd, int argc, char **argv, FILE *out,
                      FILE *msg)
{
    struct mmtb_pack_opts *o = &c->pack_opts;
    struct dir_opts d = {&o->dir, &o->threads, &o->quiet, &o->json};
    c->pack = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = parse_dir_opt(cmd, "pack", argc, argv, &i, &d, out, msg);
        if (r >= 10)
            return r - 10;
        if (r == 1)
            continue;
        if (!strcmp(a, "--level") && i + 1 < argc) {
            if (parse_int(argv[++i], 1, 22, &o->zstd_level)) {
                say(msg, "%s pack: --level: expected a zstd level 1..22, got '%s'\n", cmd,
                    argv[i]);
                return 1;
            }
        } else {
            say(msg, "%s pack: unknown or incomplete option '%s' (see --help)\n", cmd, a);
            return 1;
        }
    }
    if (!o->dir) {
        say(msg, "%s pack: -t DIR is required (see --help)\n", cmd);
        return 1;
    }
    return -1;
}

/* `verify -t DIR [...]`: argv[0] is "verify". */
static int parse_verify(struct gen_cli *c, const char *cmd, int argc, char **argv, FILE *out,
                        FILE *msg)
{
    struct gen_verify_opts *o = &c->verify_opts;
    struct dir_opts d = {&o->dir, &o->threads, &o->quiet, &o->json};
    c->verify = true;
    o->mismatches = &c->mismatches;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = parse_dir_opt(cmd, "verify", argc, argv, &i, &d, out, msg);
        if (r >= 10)
            return r - 10;
        if (r == 1)
            continue;
        if (!strcmp(a, "--sectors") && i + 1 < argc) {
            char vcmd[64];
            snprintf(vcmd, sizeof vcmd, "%s verify", cmd);
            o->n_only = parse_sectors(msg, vcmd, argv[++i], c->only, GEN_CLI_MAX_SECTORS);
            if (o->n_only < 0)
                return 1;
            o->only = c->only;
        } else if (!strcmp(a, "--ledger") && i + 1 < argc) {
            o->ledger = argv[++i];
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if (!strcmp(a, "--by-rules")) {
            o->by_rules = true;
        } else {
            say(msg, "%s verify: unknown or incomplete option '%s' (see --help)\n", cmd, a);
            return 1;
        }
    }
    if (!o->dir) {
        say(msg, "%s verify: -t DIR is required (see --help)\n", cmd);
        return 1;
    }
    return -1;
}

/* The options of a long run (--memory, --split, --checkpoint, --stop-after,
 * --verify-behind, --pack-behind) at argv[*i]: 1 when taken (*i past its
 * value), 0 when argv[*i] is none of them, -1 after a message. */
static int parse_long_run(struct mmtb_solve_opts *o, const char *cmd, int argc, char **argv,
                          int *ip, FILE *msg)
{
    int i = *ip;
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--memory") && val) {
        if (parse_bytes(argv[++i], &o->memory_limit)) {
            say(msg, "%s: --memory: expected a size such as 512M or 2G, got '%s'\n", cmd,
                val);
            return -1;
        }
    } else if (!strcmp(a, "--split") && val) {
        if (parse_scaled(argv[++i], &o->split_slots, 1)) {
            say(msg, "%s: --split: expected a number of slots such as 1 or 50M, got '%s'\n",
                cmd, val);
            return -1;
        }
    } else if (!strcmp(a, "--checkpoint") && val) {
        char *end;
        double m = strtod(argv[++i], &end);
        if (!strcmp(val, "off")) {
            o->checkpoint_minutes = -1;
        } else if (end == val || *end || !(m >= 0 && m <= 1e6)) {
            say(msg, "%s: --checkpoint: expected minutes such as 30, 0 or off, got '%s'\n",
                cmd, val);
            return -1;
        } else {
            o->checkpoint_minutes = m > 0 ? m : 1e-9; /* 0: at every level */
        }
    } else if (!strcmp(a, "--stop-after") && val) {
        if (parse_duration(argv[++i], &o->stop_after)) {
            say(msg, "%s: --stop-after: expected a time such as 2h50m, 90s or 170 (minutes), "
                "got '%s'\n", cmd, val);
            return -1;
        }
        if (o->stop_after == 0)
            o->stop_after = 1e-9; /* 0: stop before anything is solved */
    } else if (!strcmp(a, "--verify-behind") && val) {
        o->verify_behind = argv[++i];
    } else if (!strcmp(a, "--pack-behind")) {
        o->pack_behind = true;
    } else {
        return 0;
    }
    *ip = i;
    return 1;
}

int gen_cli_parse(struct gen_cli *c, const char *cmd, int argc, char **argv, FILE *out,
                  FILE *msg)
{
    memset(c, 0, sizeof *c);
    if (argc > 1 && !strcmp(argv[1], "verify"))
        return parse_verify(c, cmd, argc - 1, argv + 1, out, msg);
    if (argc > 1 && !strcmp(argv[1], "pack"))
        return parse_pack(c, cmd, argc - 1, argv + 1, out, msg);
    struct mmtb_solve_opts *o = &c->solve;
    bool start = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int taken;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (out)
                fputs(usage_gen, out);
            return 0;
        } else if ((!strcmp(a, "-v") || !strcmp(a, "--variant")) && val) {
            o->variant = argv[++i];
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && val) {
            o->outdir = argv[++i];
        } else if (!strcmp(a, "--start")) {
            start = true;
            if (val && val[0] >= '0' && val[0] <= '9') {
                i++;
                if (sscanf(val, "%d,%d", &o->start_w_hand, &o->start_b_hand) != 2 ||
                    o->start_w_hand < 0 || o->start_b_hand < 0 || o->start_w_hand > 32 ||
                    o->start_b_hand > 32 || (o->start_w_hand == 0 && o->start_b_hand == 0)) {
                    say(msg, "%s: --start: expected W,B stones in hand such as 5,5, got '%s'\n",
                        cmd, val);
                    return 1;
                }
            }
        } else if (!strcmp(a, "--max-stones") && val) {
            if (parse_int(argv[++i], 1, 32, &o->max_stones)) {
                say(msg, "%s: --max-stones: expected a number 1..32, got '%s'\n", cmd, val);
                return 1;
            }
        } else if (!strcmp(a, "--sectors") && val) {
            o->n_only = parse_sectors(msg, cmd, argv[++i], c->only, GEN_CLI_MAX_SECTORS);
            if (o->n_only < 0)
                return 1;
            o->only = c->only;
        } else if (!strcmp(a, "--threads") && val) {
            if (parse_int(argv[++i], 1, 4096, &o->threads)) {
                say(msg, "%s: --threads: expected a number 1..4096, got '%s'\n", cmd, val);
                return 1;
            }
        } else if (!strcmp(a, "--level") && val) {
            if (parse_int(argv[++i], 1, 22, &o->zstd_level)) {
                say(msg, "%s: --level: expected a zstd level 1..22, got '%s'\n", cmd, val);
                return 1;
            }
        } else if (!strcmp(a, "--dtw-level") && val) {
            if (parse_int(argv[++i], 1, 22, &o->dtw_zstd_level)) {
                say(msg, "%s: --dtw-level: expected a zstd level 1..22, got '%s'\n", cmd, val);
                return 1;
            }
        } else if ((taken = parse_long_run(o, cmd, argc, argv, &i, msg)) != 0) {
            if (taken < 0)
                return 1;
        } else if (!strcmp(a, "--buckets-on-disk")) {
            o->buckets_to_disk = 1;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if (!strcmp(a, "--plan")) {
            o->plan = true;
        } else {
            say(msg, "%s: unknown or incomplete option '%s' (see --help)\n", cmd, a);
            return 1;
        }
    }
    if (!o->variant || (!o->outdir && !o->plan)) {
        say(msg, "%s: -v VARIANT and -o DIR are required (see --help)\n", cmd);
        return 1;
    }
    if (o->pack_behind && !o->verify_behind) {
        say(msg, "%s: --pack-behind needs --verify-behind LEDGER (see --help)\n", cmd);
        return 1;
    }
    o->mismatches = &c->mismatches;
    if (start && o->start_w_hand == 0 && o->start_b_hand == 0) {
        /* the variant's own start: resolved after loading */
        o->start_w_hand = -1;
        o->start_b_hand = -1;
    }
    return -1;
}
