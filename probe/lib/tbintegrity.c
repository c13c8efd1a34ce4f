/*
 * tbintegrity.c - the integrity entry points, mmtb_tb_verify_sector and
 * mmtb_tb_verify_sector_hash (mmtb.h) and mmtb_tb_verify_file
 * (mmtb_integrity.h): each makes the
 * sector ready through the handle (tbopen.c), then runs the whole-file pass
 * (tbverify.c).  Above both, so that neither has to call the other back.
 */
#include "mmtb_integrity.h"
#include "tbinternal.h"

#include <stdio.h>
#include <string.h>

/* Sector s of tb made ready (its index, or a negative status with the
 * reason in err). */
static int ready_sector(const mmtb_tb *tb, struct mmtb_sector s, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!tb)
        return MMTB_ERR_INVALID;
    int i = tb_find(tb, s);
    if (i < 0) {
        if (err && errlen)
            snprintf(err, errlen, "sector %u-%u-%u-%u is not in the game", s.w, s.b, s.w_hand,
                     s.b_hand);
        return i;
    }
    const struct tb_sector *sec;
    int rc = tb_sector_ready(tb, i, &sec);
    if (rc != MMTB_OK) {
        if (err && errlen)
            tb_sector_detail(tb, i, err, errlen);
        return rc;
    }
    return i;
}

int mmtb_tb_verify_sector(const mmtb_tb *tb, struct mmtb_sector s, char *err, size_t errlen)
{
    int i = ready_sector(tb, s, err, errlen);
    if (i < 0)
        return i;
    struct mmtb_verify_result res = {0};
    return tb_verify_whole(tb, i, NULL, &res, err, errlen);
}

int mmtb_tb_verify_sector_hash(const mmtb_tb *tb, struct mmtb_sector s, char *err,
                               size_t errlen)
{
    int i = ready_sector(tb, s, err, errlen);
    return i < 0 ? i : tb_hash_whole(tb, i, err, errlen);
}

/* A sector that cannot be read at all is one problem of the file as a
 * whole, unless it has no file and the manifest lists none (not solved
 * yet). */
int mmtb_tb_verify_file(const mmtb_tb *tb, int i, const struct mmtb_verify_opts *o,
                        struct mmtb_verify_result *res)
{
    if (!tb || !res || i < 0 || i >= tb->n)
        return MMTB_ERR_INVALID;
    memset(res, 0, sizeof *res);
    const struct tb_sector *sec;
    int rc = tb_sector_ready(tb, i, &sec);
    res->listed = mmtb_manifest_find_file(&tb->m, tb->sec[i].s) >= 0;
    res->present = rc != MMTB_ERR_MISSING;
    if (rc == MMTB_ERR_MISSING && !res->listed)
        return MMTB_OK; /* not solved yet */
    if (rc != MMTB_OK) {
        char text[200];
        if (rc == MMTB_ERR_MISSING) {
            char file[48];
            mmtb_tf_sector_filename(tb->sec[i].s, file, sizeof file);
            snprintf(text, sizeof text, "%s: listed in MANIFEST but missing", file);
        } else {
            tb_sector_detail(tb, i, text, sizeof text);
        }
        tb_verify_report_file(tb, i, o, res, rc, text);
        return rc == MMTB_ERR_NOMEM ? rc : MMTB_OK;
    }
    rc = tb_verify_whole(tb, i, o, res, NULL, 0);
    return rc == MMTB_ERR_NOMEM || rc == MMTB_ERR_INVALID ? rc : MMTB_OK;
}
