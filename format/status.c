/*
 * status.c - mmtb_strerror: the text of each status code of mmtb_common.h.
 * Depends on nothing else.
 */
#include "mmtb_common.h"

/* A static, human-readable description of a status code. */
const char *mmtb_strerror(int status)
{
    switch (status) {
    case MMTB_OK:
        return "success";
    case MMTB_ERR_INVALID:
        return "invalid argument";
    case MMTB_ERR_NOMEM:
        return "out of memory";
    case MMTB_ERR_IO:
        return "input/output error";
    case MMTB_ERR_CORRUPT:
        return "table file is corrupt";
    case MMTB_ERR_MISSING:
        return "sector missing from the table directory";
    case MMTB_ERR_MISMATCH:
        return "table belongs to another variant or index scheme";
    case MMTB_ERR_UNSUPPORTED:
        return "unsupported format version or rule";
    case MMTB_ERR_PARSE:
        return "malformed text";
    case MMTB_ERR_NOT_IN_GAME:
        return "position is not part of the solved game";
    default:
        return "unknown status";
    }
}
