/*
 * fuzz_util.c - helpers shared by the libFuzzer targets (fuzz_util.h).
 * Process-wide caches only; nothing here is called from more than one
 * thread.
 */
#include "fuzz_util.h"

#include <sanitizer/common_interface_defs.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#ifndef MMTB_FUZZ_GEN
#error "MMTB_FUZZ_GEN (the path of mmtb-gen) must be defined by the build"
#endif

void fuzz_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg);
    __sanitizer_report_error_summary(msg);
    abort();
}

/* Built-in variants, loaded on first use. */
static struct mmtb_variant *variants[64];
static int nvariants = -1;

/* Load every built-in once. */
static void load_variants(void)
{
    const char *const *names = mmtb_variant_builtin_names();
    nvariants = 0;
    for (int i = 0; names[i] && nvariants < 64; i++) {
        char err[200];
        if (mmtb_variant_load(&variants[nvariants], names[i], err, sizeof err) != MMTB_OK) {
            fprintf(stderr, "fuzz: cannot load built-in %s: %s\n", names[i], err);
            abort();
        }
        nvariants++;
    }
    FUZZ_ASSERT(nvariants > 0);
}

const struct mmtb_variant *fuzz_variant(uint8_t b)
{
    if (nvariants < 0)
        load_variants();
    return variants[b % nvariants];
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_ASSERT(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Table directories made so far, removed at exit. */
static struct {
    char key[128];
    char base[64]; /* the temporary directory */
    char dir[72];  /* base/t, the tables */
} made[8];
static int nmade;

/* Remove the table directories of this process. */
static void remove_tables(void)
{
    for (int i = 0; i < nmade; i++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", made[i].base);
        if (system(cmd) != 0)
            fprintf(stderr, "fuzz: could not remove %s\n", made[i].base);
    }
}

const char *fuzz_gen_path(void)
{
    return MMTB_FUZZ_GEN;
}

const char *fuzz_tables(const char *variant, const char *args)
{
    char key[128];
    snprintf(key, sizeof key, "%s %s", variant, args);
    for (int i = 0; i < nmade; i++)
        if (!strcmp(made[i].key, key))
            return made[i].dir;
    FUZZ_ASSERT(nmade < 8);
    snprintf(made[nmade].key, sizeof made[nmade].key, "%s", key);
    /* $TMPDIR when set (scripts/fuzz points it at a tmpfs: the tables
     * target rewrites a file for every input) */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > sizeof made[nmade].base - 20)
        tmp = "/tmp";
    snprintf(made[nmade].base, sizeof made[nmade].base, "%s/mmtb-fuzz-XXXXXX", tmp);
    FUZZ_ASSERT(mkdtemp(made[nmade].base) != NULL);
    snprintf(made[nmade].dir, sizeof made[nmade].dir, "%s/t", made[nmade].base);
    if (nmade == 0)
        atexit(remove_tables);
    const char *dir = made[nmade++].dir;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' -v %s %s -o '%s' --threads 1 --quiet >/dev/null",
             MMTB_FUZZ_GEN, variant, args, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "fuzz: failed: %s\n", cmd);
        abort();
    }
    return dir;
}

void fuzz_silence_stdout(void)
{
    fflush(stdout);
    FUZZ_ASSERT(freopen("/dev/null", "w", stdout) != NULL);
}
