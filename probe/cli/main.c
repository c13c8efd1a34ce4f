/*
 * main.c - entry point of mmtb-probe: dispatches to the subcommands
 * (probe/cli/cli_*.c) and prints the top-level help and version.  Owns no
 * logic of its own; the subcommand interfaces are documented in docs/CLI.md.
 */
#include <stdio.h>
#include <string.h>

#include "probe_cli.h"

#ifndef MMTB_VERSION
#define MMTB_VERSION "0.1.0"
#endif

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"board", cli_cmd_board, "draw a variant's board; list its lines, mills, rules, symmetries"},
    {"moves", cli_cmd_moves, "list the legal moves of a position"},
    {"perft", cli_cmd_perft, "count move sequences of a given depth (move generator check)"},
    {"sectors", cli_cmd_sectors, "list a variant's sectors with their sizes"},
    {"probe", cli_cmd_probe, "value, depth and move values of positions from solved tables"},
    {"stats", cli_cmd_stats, "per-sector statistics of a table directory"},
    {"play", cli_cmd_play, "play a game against perfect play in the terminal"},
    {"annotate", cli_cmd_annotate, "judge every ply of recorded games against perfect play"},
    {"check", cli_cmd_check, "judge engines' chosen moves in bulk against perfect play"},
    {"engine", cli_cmd_engine, "perfect play behind a UCI-like protocol (for GUIs and match runners)"},
    {"integrity", cli_cmd_integrity, "check every byte of a table directory (hashes, blocks, values)"},
    {"bench", cli_cmd_bench, "measure probe speed, table size and memory on a table directory"},
    {"serve", cli_cmd_serve, "an HTTP API and a board page in the browser (needs libmicrohttpd)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_help(FILE *f)
{
    fprintf(f, "Usage: %s COMMAND [OPTIONS] [ARGS]\n\n", CLI_PROG);
    fprintf(f, "Rules, notation and perfect play for the Morris family of games.\n\n");
    fprintf(f, "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nGlobal options:\n");
    fprintf(f, "  -h, --help     show this help ('%s COMMAND --help' for a command)\n", CLI_PROG);
    fprintf(f, "  -V, --version  show the version\n");
    fprintf(f, "\nExit codes: 0 success; 1 bad usage or bad input; 2 table missing or corrupt.\n");
    fprintf(f, "Documentation: docs/CLI.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr); /* a usage error: the help goes to stderr */
        return CLI_EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        /* "help COMMAND" is the same as "COMMAND --help" */
        if (argc >= 3 && strcmp(cmd, "help") == 0) {
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (strcmp(argv[2], commands[i].name) == 0) {
                    char *sub[] = {argv[2], "--help", NULL};
                    return commands[i].run(2, sub);
                }
            return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
        }
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("%s %s\n", CLI_PROG, MMTB_VERSION);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
