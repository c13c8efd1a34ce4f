/*
 * mmtb-gen - command line of the solver: `mmtb-gen -v VARIANT -o DIR`
 * solves a game's sectors and writes the tables; `mmtb-gen verify -t DIR`
 * re-derives every stored value; `mmtb-gen pack -t DIR` keeps only the
 * losses' depths.  The options are cli.c's (shared with
 * mmtb-gen-mpi).  Exit codes: 0 success, 1 bad usage or input, 2 table or
 * file problem, 3 verification (or a solve's --verify-behind) found
 * mismatches, 4 not enough memory, 5 stopped as --stop-after asked.
 * SIGUSR1 during a solve saves the pair's progress at the start of its
 * next level (mmtb_solve_checkpoint_on).
 */
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "solve.h"

int main(int argc, char **argv)
{
    static struct gen_cli c;
    int code = gen_cli_parse(&c, "mmtb-gen", argc, argv, stdout, stderr);
    if (code >= 0)
        return code;
    char err[512] = "";
    if (!c.verify && !c.pack && mmtb_solve_checkpoint_on(SIGUSR1) != MMTB_OK)
        fprintf(stderr, "mmtb-gen: cannot catch SIGUSR1; a checkpoint cannot be asked for\n");
    int rc = c.verify ? mmtb_verify(&c.verify_opts, err, sizeof err)
             : c.pack ? mmtb_pack(&c.pack_opts, NULL, err, sizeof err)
                      : mmtb_solve(&c.solve, err, sizeof err);
    if (rc == MMTB_SOLVE_STOPPED) {
        fprintf(stderr, "mmtb-gen: %s\n", err);
        return 5;
    }
    if (rc != MMTB_OK) {
        fprintf(stderr, "mmtb-gen%s: %s\n", c.verify ? " verify" : c.pack ? " pack" : "", err);
        return c.mismatches ? 3 : gen_cli_exit_code(rc);
    }
    return c.verify && c.mismatches ? 3 : 0;
}
