/*
 * ledger.h - the record `mmtb-gen verify --ledger FILE` keeps of the
 * sectors it found clean, so that a long verification interrupted (a
 * sitting ends, the machine reboots) goes on where it stopped and a sector
 * is checked again only when its file or a file its moves lead to changed.
 *
 * The file is text, one line per clean sector, appended and synced as each
 * sector is done (docs/CLI.md describes it):
 *
 *     mmtb-verify-ledger 1
 *     SECTOR IDENTITY POSITIONS
 *
 * IDENTITY (16 hex digits) is mmtb_ledger_identity's hash of the sector's
 * file and its successors' files.  A last line cut short by a kill is
 * dropped when the ledger is opened; any other malformed line is an error
 * naming the file and line.  Private to gen/.
 */
#ifndef MMTB_LEDGER_H
#define MMTB_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmtb.h"
#include "variant.h"

struct mmtb_ledger;

/*
 * Open (or create) the ledger at path, read its entries, drop a cut-short
 * last line, and lock it against a second verify using it at the same
 * time.  Returns MMTB_OK, MMTB_ERR_IO (cannot create, read, write or lock:
 * in use), MMTB_ERR_INVALID (not a ledger, or a malformed line: file and
 * line in err) or MMTB_ERR_NOMEM.
 */
int mmtb_ledger_open(struct mmtb_ledger **out, const char *path, char *err, size_t errlen);

/* The positions recorded for a clean sector named name with this identity,
 * or -1 when the ledger has no such entry. */
int64_t mmtb_ledger_find(const struct mmtb_ledger *l, const char *name, uint64_t identity);

/* Whether the ledger has an entry for a sector named name, whatever its
 * identity (a solve that packs what it verified: packing changes the
 * files the identity hashes). */
bool mmtb_ledger_has_name(const struct mmtb_ledger *l, const char *name);

/* Append "name identity positions" and sync it to disk.  Returns MMTB_OK
 * or MMTB_ERR_IO / MMTB_ERR_NOMEM with a message in err. */
int mmtb_ledger_add(struct mmtb_ledger *l, const char *name, uint64_t identity,
                    uint64_t positions, char *err, size_t errlen);

void mmtb_ledger_close(struct mmtb_ledger *l);

/*
 * The identity of sector s of the table directory dir: the XXH64 of the
 * names, sizes and recorded file hashes (footers) of its file and of the
 * files of the sectors its moves lead to (mmtb_sector_moves_to), in that
 * order; a successor without a file counts as absent.  Reads only headers
 * and footers.  Returns MMTB_OK or an error with the file named in err.
 */
int mmtb_ledger_identity(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                         uint64_t *identity, char *err, size_t errlen);

#endif
