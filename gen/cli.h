/*
 * cli.h - the command line of mmtb-gen, shared by mmtb-gen and
 * mmtb-gen-mpi: the usage text, the parsing of the solve and verify
 * options into their option structs, and the exit codes.  Parsing only:
 * the callers run mmtb_solve or mmtb_verify (solve.h).
 */
#ifndef MMTB_GEN_CLI_H
#define MMTB_GEN_CLI_H

#include <stdio.h>

#include "pack.h"
#include "solve.h"

#define GEN_CLI_MAX_SECTORS 256

/* A parsed command line; verify_opts.mismatches points into it. */
struct gen_cli {
    bool verify; /* `verify -t DIR` */
    bool pack;   /* `pack -t DIR`; neither: solve */
    struct mmtb_solve_opts solve;
    struct gen_verify_opts verify_opts;
    struct mmtb_pack_opts pack_opts;
    uint64_t mismatches;
    struct mmtb_sector only[GEN_CLI_MAX_SECTORS];
};

/*
 * Parse argv[1..argc) (cmd names the program in messages) into c.  Returns
 * -1 when there is something to run, or the exit code to end with: 0
 * after --help (the usage printed on stdout, when out is not NULL), 1
 * after a message naming the bad option on msg (NULL: no message).
 */
int gen_cli_parse(struct gen_cli *c, const char *cmd, int argc, char **argv, FILE *out,
                  FILE *msg);

/* The exit code of a failed mmtb_solve or mmtb_verify status: 1 bad usage
 * or input, 2 table or file problem, 4 not enough memory (over --memory,
 * or an allocation failed). */
int gen_cli_exit_code(int rc);

#endif
