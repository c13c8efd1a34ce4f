/*
 * fuzz_util.h - helpers shared by the libFuzzer targets of tests/fuzz/: the
 * built-in variant picked by an input byte, NUL-terminated copies of the
 * input, small real tables made once per process by mmtb-gen, and the
 * assertion that turns a broken invariant into a crash libFuzzer keeps.
 */
#ifndef MMTB_FUZZ_UTIL_H
#define MMTB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "variant.h"

/* A broken invariant: print the message (on stderr and through the
 * sanitizers' report channel, which scripts/fuzz's -close_fd_mask keeps
 * open) and abort; libFuzzer saves the input. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define FUZZ_ASSERT(cond)                                                             \
    do {                                                                              \
        if (!(cond))                                                                  \
            fuzz_fail("%s:%d: invariant broken: %s", __FILE__, __LINE__, #cond);      \
    } while (0)

/* The built-in variant number b modulo the number of built-ins (loaded
 * once, kept for the life of the process). */
const struct mmtb_variant *fuzz_variant(uint8_t b);

/* A malloc'd NUL-terminated copy of data[0..size) (aborts on no memory). */
char *fuzz_cstr(const uint8_t *data, size_t size);

/*
 * A directory of tables of `variant` made by the mmtb-gen of this build
 * with the extra arguments `args` ("--start"), under a fresh directory in
 * /tmp removed at exit; made on the first call with those arguments and
 * reused.  Aborts when mmtb-gen fails.
 */
/* The path of the mmtb-gen the build made (for runs of its other commands). */
const char *fuzz_gen_path(void);

const char *fuzz_tables(const char *variant, const char *args);

/* Send stdout to /dev/null: for targets that drive commands that print
 * (their messages on stderr are silenced by scripts/fuzz's -close_fd_mask,
 * which keeps libFuzzer's and the sanitizers' reports). */
void fuzz_silence_stdout(void);

#endif
