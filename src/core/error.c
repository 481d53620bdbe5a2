/* Per-thread error record: status, the user's message and the library source location. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_base.h"

enum { SP_MESSAGE_MAX = 1024 };

static _Thread_local char tls_message[SP_MESSAGE_MAX];
static _Thread_local char tls_origin[256];

sp_status_t sp__error(sp_status_t status, const char *src_file, int src_line,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    snprintf(tls_origin, sizeof tls_origin, "%s:%d", src_file, src_line);
    return status;
}

const char *sp__error_origin(void) { return tls_origin; }

const char *sp_last_error(void) { return tls_message; }

void sp_clear_error(void)
{
    tls_message[0] = '\0';
    tls_origin[0] = '\0';
}

const char *sp_status_string(sp_status_t status)
{
    switch (status) {
    case SP_STATUS_SUCCESS: return "SP_STATUS_SUCCESS";
    case SP_STATUS_INVALID_ARGUMENT: return "SP_STATUS_INVALID_ARGUMENT";
    case SP_STATUS_ALLOC_FAILED: return "SP_STATUS_ALLOC_FAILED";
    case SP_STATUS_IO_ERROR: return "SP_STATUS_IO_ERROR";
    case SP_STATUS_PARSE_ERROR: return "SP_STATUS_PARSE_ERROR";
    case SP_STATUS_NOT_SUPPORTED: return "SP_STATUS_NOT_SUPPORTED";
    case SP_STATUS_NOT_COMPILED: return "SP_STATUS_NOT_COMPILED";
    case SP_STATUS_NO_DEVICE: return "SP_STATUS_NO_DEVICE";
    case SP_STATUS_DEVICE_ERROR: return "SP_STATUS_DEVICE_ERROR";
    case SP_STATUS_INTERNAL_ERROR: return "SP_STATUS_INTERNAL_ERROR";
    }
    return "SP_STATUS_UNKNOWN";
}

const char *sp_version(void)
{
#define SP_STR2(x) #x
#define SP_STR(x) SP_STR2(x)
    return SP_STR(SP_VERSION_MAJOR) "." SP_STR(SP_VERSION_MINOR) "." SP_STR(SP_VERSION_PATCH);
}
