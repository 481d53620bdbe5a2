/* Contexts: the host executor (the references) or one CUDA device. */
#include <string.h>

#include "sp_api.h"

sp_status_t sp__context_record(sp_context_t *ctx, sp_status_t status)
{
    if (ctx && status != SP_STATUS_SUCCESS) {
        strncpy(ctx->last_error, sp_last_error(), sizeof ctx->last_error - 1);
        ctx->last_error[sizeof ctx->last_error - 1] = '\0';
    }
    return status;
}

sp_status_t sp_context_create(sp_device_kind_t kind, const sp_context_options_t *options,
                              sp_context_t **ctx)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_context_t *c = NULL;
    SP_CHECK_ARG(ctx != NULL, "sp_context_create: ctx is NULL");
    SP_CHECK_ARG(kind == SP_DEVICE_HOST || kind == SP_DEVICE_CUDA,
                 "sp_context_create: unknown device kind %d", (int)kind);
    SP_CALLOC(c, 1);
    c->kind = kind;
    if (kind == SP_DEVICE_HOST) {
        strcpy(c->info.name, "host");
    } else {
        SP_TRY(sp__cuda_context_init(c, options));
    }
    *ctx = c;
    c = NULL;
done:
    sp__free(c);
    return st;
}

void sp_context_destroy(sp_context_t *ctx)
{
    if (!ctx) return;
    if (ctx->kind == SP_DEVICE_CUDA) sp__cuda_context_fini(ctx);
    sp__free(ctx);
}

sp_device_kind_t sp_context_kind(const sp_context_t *ctx)
{
    return ctx ? ctx->kind : SP_DEVICE_HOST;
}

const char *sp_context_last_error(const sp_context_t *ctx)
{
    return ctx ? ctx->last_error : "";
}

sp_status_t sp_context_synchronize(sp_context_t *ctx)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL, "sp_context_synchronize: ctx is NULL");
    if (ctx->kind == SP_DEVICE_CUDA) st = sp__cuda_synchronize(ctx);
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_context_device_info(const sp_context_t *ctx, sp_device_info_t *info)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    SP_CHECK_ARG(ctx != NULL && info != NULL, "sp_context_device_info: NULL argument");
    *info = ctx->info;
done:
    return st;
}

/* One body for both calls: the checks and the host's refusal are the same. */
static sp_status_t context_memory(sp_context_t *ctx, int reset, sp_memory_stats_t *out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    const char *call = reset ? "sp_context_memory_reset_peak" : "sp_context_memory";
    SP_CHECK_ARG(ctx != NULL, "%s: ctx is NULL", call);
    SP_CHECK_ARG(reset || out != NULL, "%s: out is NULL", call);
    if (ctx->kind == SP_DEVICE_HOST)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED,
                "%s: a host context does not count its memory (host arrays come from the "
                "process-wide sp_set_host_allocator hooks, shared by every context, whose "
                "free is not given a size)", call);
    st = sp__cuda_memory(ctx, reset, out);
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_context_memory(sp_context_t *ctx, sp_memory_stats_t *out)
{
    return context_memory(ctx, 0, out);
}

sp_status_t sp_context_memory_reset_peak(sp_context_t *ctx)
{
    return context_memory(ctx, 1, NULL);
}
