/*
 * tbpublic.c - the small accessors of the installed API that have no other
 * home: the library version and the variant's names (struct mmtb_variant is
 * opaque outside the project).  Depends on format/variant.h only.
 */
#include "mmtb.h"
#include "variant.h"

#define MMTB_STR_(x) #x
#define MMTB_STR(x) MMTB_STR_(x)

/* "MAJOR.MINOR.PATCH" from the header's macros, fixed when the library is
 * compiled (so a program can compare it with the header it was built
 * with). */
const char *mmtb_version(void)
{
    return MMTB_STR(MMTB_VERSION_MAJOR) "." MMTB_STR(MMTB_VERSION_MINOR) "." MMTB_STR(
        MMTB_VERSION_PATCH);
}

/* The variant's short identifier, e.g. "nine". */
const char *mmtb_variant_name(const struct mmtb_variant *v)
{
    return v->name;
}

/* The variant's human title, e.g. "Nine Men's Morris". */
const char *mmtb_variant_title(const struct mmtb_variant *v)
{
    return v->title;
}
