/*
 * cli_verdict.c - judging a played move against perfect play, shared by
 * `annotate` (whole games) and `check` (one engine move per position):
 * matching a move token to the legal moves with a reason when it is not one,
 * the verdict (best / keeps / error / unknown), the best moves, the phase,
 * and the predicted result of a value.  Move values come from libmmtb
 * (mmtb_probe_move, mmtb_probe_moves); no rule is restated here.
 */
#include <stdlib.h>
#include <string.h>

#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"

static bool same_move(const struct mmtb_move *a, const struct mmtb_move *b)
{
    return a->from == b->from && a->to == b->to && a->remove == b->remove;
}

/* True when a move of colour c from `from` (-1: a placement) to `to` closes
 * a mill: some mill through `to` is all c's after the move. */
static bool closes_mill(const struct mmtb_variant *v, const struct mmtb_pos *p, int c, int from,
                        int to)
{
    uint32_t own = p->stones[c];
    if (from >= 0)
        own &= ~(1u << from);
    own |= 1u << to;
    for (int k = 0; k < v->nmills; k++)
        if ((v->mills_at[to] >> k & 1) && (v->mill[k] & own) == v->mill[k])
            return true;
    return false;
}

/* The reason why removing point r is not legal for the side to move. */
static void why_not_removal(const struct mmtb_variant *v, const struct mmtb_pos *p, int r,
                            char *why, size_t len)
{
    int opp = p->side ^ 1;
    if (!(p->stones[opp] >> r & 1))
        snprintf(why, len, "%s is not a %s stone", v->point_name[r], cli_colour_name(opp, false));
    else if (v->removal == MMTB_REMOVE_IMMUNE)
        snprintf(why, len, "%s stands in a mill, and stones in mills cannot be removed",
                 v->point_name[r]);
    else
        snprintf(why, len, "%s stands in a mill and %s has stones outside mills",
                 v->point_name[r], cli_colour_name(opp, false));
}

/*
 * Why the parsed move m is not one of the n legal moves of p: the first
 * rule it breaks, in the words a player would use ("d5 is occupied").
 */
static void why_illegal(const struct mmtb_variant *v, const struct mmtb_pos *p,
                        const struct mmtb_move *m, const struct mmtb_move *legal, int n,
                        char *why, size_t len)
{
    int c = p->side;
    const char *me = cli_colour_name(c, true);
    if (p->remove > 0) {
        if (m->from != -1 || m->to != -1)
            snprintf(why, len, "%s must first remove a stone (xPOINT)", me);
        else if (m->remove < 0)
            snprintf(why, len, "a stone must be removed");
        else
            why_not_removal(v, p, m->remove, why, len);
        return;
    }
    if (m->from == MMTB_MOVE_PASS) {
        snprintf(why, len, "%s has a legal move and may not pass", me);
        return;
    }
    if (m->to < 0) {
        snprintf(why, len, "no removal is pending: write the removal after its move "
                           "(d6-d5xb4 or d6-d5 xb4)");
        return;
    }
    const char *to = v->point_name[m->to];
    uint32_t occ = p->stones[0] | p->stones[1];
    if (m->from < 0) {
        if (p->hand[c] == 0)
            snprintf(why, len, "%s has no stones left to place", me);
        else if (occ >> m->to & 1)
            snprintf(why, len, "%s is occupied", to);
        else
            snprintf(why, len, "not a legal placement here");
        return;
    }
    const char *from = v->point_name[m->from];
    if (p->hand[c] > 0 && !v->place_or_move)
        snprintf(why, len, "%s still has stones to place", me);
    else if (!(p->stones[c] >> m->from & 1))
        snprintf(why, len, "%s is not a %s stone", from, cli_colour_name(c, false));
    else if (occ >> m->to & 1)
        snprintf(why, len, "%s is occupied", to);
    else if (!(v->adj[m->from] >> m->to & 1) && !mmtb_pos_can_fly(v, p, c))
        snprintf(why, len, "%s is not next to %s and %s may not fly", to, from, me);
    else
        goto removal;
    return;

removal:;
    /* the from/to part is legal: what is wrong is the removal */
    bool with_removal = false, without = false;
    for (int i = 0; i < n; i++)
        if (legal[i].from == m->from && legal[i].to == m->to) {
            with_removal |= legal[i].remove >= 0;
            without |= legal[i].remove < 0;
        }
    char mb[64];
    struct mmtb_move bare = {m->from, m->to, -1};
    mmtb_move_format(v, &bare, mb, sizeof mb);
    if (m->remove < 0 && with_removal)
        snprintf(why, len, "%s closes a mill: name the stone to remove (%sxPOINT)", mb, mb);
    else if (m->remove >= 0 && without && !with_removal)
        snprintf(why, len, "%s %s, so it removes nothing", mb,
                 closes_mill(v, p, c, m->from, m->to) ? "may remove no stone here"
                                                      : "closes no mill");
    else if (m->remove >= 0)
        why_not_removal(v, p, m->remove, why, len);
    else
        snprintf(why, len, "not a legal move here");
}

int cli_match_move(const struct mmtb_variant *v, const struct mmtb_pos *p,
                   const struct mmtb_move *m, char *why, size_t len)
{
    int t = mmtb_pos_terminal(v, p);
    if (t != MMTB_NOT_TERMINAL) {
        if (t == MMTB_LOSS)
            snprintf(why, len, "the game is over: %s has lost", cli_colour_name(p->side, false));
        else
            snprintf(why, len, "the game is over: drawn");
        return MMTB_ERR_INVALID;
    }
    struct mmtb_move *legal = malloc(sizeof *legal * MMTB_MAX_MOVES);
    if (!legal) {
        snprintf(why, len, "out of memory");
        return MMTB_ERR_NOMEM;
    }
    int n = mmtb_gen_moves(v, p, legal), rc = MMTB_ERR_INVALID;
    if (n < 0) {
        snprintf(why, len, "%s", mmtb_strerror(n));
        rc = n;
    }
    for (int i = 0; i < n; i++)
        if (same_move(&legal[i], m))
            rc = MMTB_OK;
    if (rc == MMTB_ERR_INVALID)
        why_illegal(v, p, m, legal, n, why, len);
    free(legal);
    return rc;
}

int cli_apply_action(const struct mmtb_variant *v, struct mmtb_pos *p, const char *tok, char *why,
                     size_t len)
{
    struct mmtb_move m;
    char err[160] = "";
    if (mmtb_move_parse(v, tok, &m, err, sizeof err) != MMTB_OK) {
        snprintf(why, len, "%s", err);
        return MMTB_ERR_PARSE;
    }
    struct mmtb_pos q;
    if (cli_match_move(v, p, &m, err, sizeof err) == MMTB_OK) {
        mmtb_pos_apply(v, p, &m, &q);
        *p = q;
        return MMTB_OK;
    }
    /* the first half of a mill-closing turn: legal with some removal */
    struct mmtb_move *legal = malloc(sizeof *legal * MMTB_MAX_MOVES);
    int n = legal && m.remove < 0 && p->remove == 0 &&
                    mmtb_pos_terminal(v, p) == MMTB_NOT_TERMINAL
                ? mmtb_gen_moves(v, p, legal)
                : 0;
    bool half = false;
    for (int i = 0; i < n && !half; i++)
        half = legal[i].from == m.from && legal[i].to == m.to && legal[i].remove >= 0;
    free(legal);
    if (!half) {
        snprintf(why, len, "%s is not legal: %s", tok, err);
        return MMTB_ERR_INVALID;
    }
    q = *p;
    if (m.from >= 0)
        q.stones[q.side] &= ~(1u << m.from);
    else
        q.hand[q.side]--;
    q.stones[q.side] |= 1u << m.to;
    q.remove = 1;
    *p = q;
    return MMTB_OK;
}

int cli_parse_turn(const struct mmtb_variant *v, char *const *tok, int ntok, int *used,
                   struct mmtb_move *m, char *err, size_t len)
{
    *used = 0;
    if (ntok <= 0) {
        snprintf(err, len, "no move");
        return MMTB_ERR_PARSE;
    }
    char e[160] = "";
    if (mmtb_move_parse(v, tok[0], m, e, sizeof e) != MMTB_OK) {
        snprintf(err, len, "%s", e); /* names the token */
        return MMTB_ERR_PARSE;
    }
    *used = 1;
    /* a removal written as its own token after the move that closed the mill */
    bool is_move = m->to >= 0 && m->from != MMTB_MOVE_PASS;
    if (is_move && m->remove < 0 && ntok > 1 && tok[1][0] == 'x') {
        struct mmtb_move r;
        if (mmtb_move_parse(v, tok[1], &r, e, sizeof e) == MMTB_OK && r.to < 0 && r.from == -1) {
            m->remove = r.remove;
            *used = 2;
        }
    }
    return MMTB_OK;
}

/* The sector of p the tables cannot answer, as "sector 8-9-1-0 not in
 * DIR" (or its file's problem); false when p's own sector is usable. */
static bool sector_problem(const mmtb_tb *tb, const char *dir, const struct mmtb_pos *p,
                           char *msg, size_t len)
{
    if (mmtb_pos_terminal(mmtb_tb_variant(tb), p) != MMTB_NOT_TERMINAL || p->remove > 0)
        return false;
    struct mmtb_sector s = mmtb_pos_sector(p);
    struct mmtb_sector_stats st;
    int rc = mmtb_tb_sector_stats(tb, s, &st);
    if (rc == MMTB_OK)
        return false;
    char name[32];
    mmtb_sector_format(s, name, sizeof name);
    if (rc == MMTB_ERR_MISSING || rc == MMTB_ERR_NOT_IN_GAME)
        snprintf(msg, len, "sector %s not in %s", name, dir);
    else
        snprintf(msg, len, "sector %s: %s", name, mmtb_strerror(rc));
    return true;
}

/* Name the sector that made a probe from p fail: p's own, the one the
 * played move leads to, or any other successor's. */
static void name_unknown(const mmtb_tb *tb, const char *dir, const struct mmtb_pos *p,
                         const struct mmtb_move *m, int status, char *msg, size_t len)
{
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_pos q;
    if (sector_problem(tb, dir, p, msg, len))
        return;
    mmtb_pos_apply(v, p, m, &q);
    if (sector_problem(tb, dir, &q, msg, len))
        return;
    struct mmtb_move *all = malloc(sizeof *all * MMTB_MAX_MOVES);
    int n = all ? mmtb_gen_moves(v, p, all) : 0;
    for (int i = 0; i < n; i++) {
        mmtb_pos_apply(v, p, &all[i], &q);
        if (sector_problem(tb, dir, &q, msg, len)) {
            free(all);
            return;
        }
    }
    free(all);
    snprintf(msg, len, "%s", mmtb_strerror(status));
}

/* Ordering of values for the mover, as libmmtb sorts moves. */
static long value_score(const struct mmtb_value *x)
{
    if (x->wdl == MMTB_WIN)
        return 3000000L - x->dtw;
    if (x->wdl == MMTB_DRAW)
        return 2000000L;
    return 1000000L + x->dtw;
}

bool cli_value_equal(const struct mmtb_value *a, const struct mmtb_value *b)
{
    return a->wdl == b->wdl && (a->wdl == MMTB_DRAW || a->dtw == b->dtw);
}

int cli_judge(const mmtb_tb *tb, mmtb_ctx *ctx, const char *dir, const struct mmtb_pos *p,
              const struct mmtb_move *m, struct mmtb_move_value *scratch,
              struct cli_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = CLI_UNKNOWN;
    int rc = mmtb_probe(ctx, p, &out->before);
    if (rc == MMTB_OK)
        rc = mmtb_probe_move(ctx, p, m, &out->after);
    if (rc == MMTB_OK && value_score(&out->after) > value_score(&out->before))
        rc = MMTB_ERR_CORRUPT; /* a move better than the position: the tables disagree */
    if (rc == MMTB_OK && cli_value_equal(&out->after, &out->before)) {
        out->verdict = CLI_BEST;
        return MMTB_OK;
    }
    if (rc == MMTB_OK) {
        int n = mmtb_probe_moves(ctx, p, scratch, MMTB_MAX_MOVES);
        if (n < 0)
            rc = n;
        for (int i = 0; i < n && cli_value_equal(&scratch[i].value, &out->before); i++) {
            if (out->nbest < CLI_MAX_BEST)
                out->best[out->nbest] = scratch[i].move;
            out->nbest++;
        }
    }
    if (rc != MMTB_OK) {
        out->status = rc;
        name_unknown(tb, dir, p, m, rc, out->unknown, sizeof out->unknown);
        return rc;
    }
    out->verdict = out->after.wdl == out->before.wdl ? CLI_KEEPS : CLI_ERROR;
    return MMTB_OK;
}

const char *cli_verdict_name(int verdict)
{
    switch (verdict) {
    case CLI_BEST:
        return "best";
    case CLI_KEEPS:
        return "keeps";
    case CLI_ERROR:
        return "error";
    default:
        return "unknown";
    }
}

const char *cli_error_kind(const struct cli_judgement *j)
{
    if (j->verdict != CLI_ERROR)
        return NULL;
    if (j->before.wdl == MMTB_WIN)
        return j->after.wdl == MMTB_DRAW ? "win->draw" : "win->loss";
    return "draw->loss";
}

const char *cli_phase_name(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    if (p->hand[p->side] > 0)
        return "placement";
    return v->fly && mmtb_pos_can_fly(v, p, p->side) ? "flying" : "movement";
}

const char *cli_result_of(int side, const struct mmtb_value *val)
{
    if (val->wdl == MMTB_DRAW)
        return "1/2-1/2";
    int winner = val->wdl == MMTB_WIN ? side : side ^ 1;
    return winner == MMTB_WHITE ? "1-0" : "0-1";
}

void cli_json_value(FILE *f, const struct mmtb_value *val)
{
    if (val->wdl == MMTB_DRAW)
        fprintf(f, "{\"wdl\":\"draw\",\"dtw\":null}");
    else
        fprintf(f, "{\"wdl\":\"%s\",\"dtw\":%d}", cli_wdl_name(val->wdl), val->dtw);
}

void cli_format_best(const struct mmtb_variant *v, const struct cli_judgement *j,
                     const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < j->nbest && i < CLI_MAX_BEST; i++) {
        char mb[64];
        mmtb_move_format(v, &j->best[i], mb, sizeof mb);
        int k = snprintf(buf + used, len - used, "%s%s", i ? sep : "", mb);
        if (k < 0 || (size_t)k >= len - used)
            return;
        used += (size_t)k;
    }
    if (j->nbest > CLI_MAX_BEST)
        snprintf(buf + used, len - used, "%s(+%d more)", sep, j->nbest - CLI_MAX_BEST);
}
