/* Names of the storage formats, both ways. */
#include <string.h>

#include "sp_base.h"

static const char *const g_names[SP_FORMAT_COUNT] = {"coo", "csr", "csc", "ell",
                                                     "hyb", "jds", "sell"};

const char *sp_format_name(sp_format_t format)
{
    if (format == SP_FORMAT_AUTO) return "auto";
    if ((int)format < 0 || format >= SP_FORMAT_COUNT) return NULL;
    return g_names[format];
}

sp_status_t sp_format_parse(const char *name, sp_format_t *format)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(name != NULL && format != NULL, "sp_format_parse: NULL argument");
    if (strcmp(name, "auto") == 0) {
        *format = SP_FORMAT_AUTO;
        goto done;
    }
    for (int f = 0; f < SP_FORMAT_COUNT; f++) {
        if (strcmp(name, g_names[f]) == 0) {
            *format = (sp_format_t)f;
            goto done;
        }
    }
    SP_FAIL(SP_STATUS_INVALID_ARGUMENT,
            "unknown format \"%s\" (expected coo, csr, csc, ell, hyb, jds, sell or auto)",
            name);
done:
    return st;
}
