/* Vector handles: n values of one type in a context's memory, created from host values or
 * zeros, copied back and forth, filled and copied on the context. */
#include <string.h>

#include "sp_vector.h"

static size_t bytes_of(const sp_vector_t *v) { return (size_t)v->n * sp_value_size(v->type); }

void sp_vector_destroy(sp_vector_t *v)
{
    if (!v) return;
    if (v->ctx->kind == SP_DEVICE_CUDA) sp__cuda_vector_free(v);
    else sp__free(v->data);
    sp__free(v);
}

sp_status_t sp__vector_new(sp_context_t *ctx, sp_value_type_t t, int64_t n, sp_vector_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_vector_t *v = NULL;
    SP_CALLOC(v, 1);
    v->ctx = ctx;
    v->type = t;
    v->n = n;
    if (ctx->kind == SP_DEVICE_CUDA) {
        SP_TRY(sp__cuda_vector_alloc(v));
        SP_TRY(sp__vec_fill(ctx, v, 0.0));
    } else {
        v->data = sp__calloc_array((size_t)(n > 0 ? n : 1), sp_value_size(t));
        if (!v->data)
            SP_FAIL(SP_STATUS_ALLOC_FAILED, "out of host memory allocating a vector of %lld "
                    "values", (long long)n);
    }
    *out = v;
    v = NULL;
done:
    sp_vector_destroy(v);
    return st;
}

sp_status_t sp_vector_create(sp_context_t *ctx, sp_value_type_t type, int64_t n,
                             const void *h_values, sp_vector_t **out)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    sp_vector_t *v = NULL;
    SP_CHECK_ARG(ctx != NULL && out != NULL, "sp_vector_create: ctx or v is NULL");
    SP_CHECK_ARG(type == SP_R_32F || type == SP_R_64F,
                 "sp_vector_create: value type %d is not SP_R_32F or SP_R_64F", (int)type);
    SP_CHECK_ARG(n >= 0, "sp_vector_create: negative length %lld", (long long)n);
    if (n > INT32_MAX)
        SP_FAIL(SP_STATUS_NOT_SUPPORTED, "sp_vector_create: length %lld exceeds 32-bit "
                "indices (limit %d)", (long long)n, INT32_MAX);
    SP_TRY(sp__vector_new(ctx, type, n, &v));
    if (h_values) SP_TRY(sp_vector_copy_from_host(ctx, v, h_values));
    *out = v;
    v = NULL;
done:
    sp_vector_destroy(v);
    return sp__context_record(ctx, st);
}

int64_t sp_vector_length(const sp_vector_t *v) { return v ? v->n : 0; }

sp_value_type_t sp_vector_value_type(const sp_vector_t *v) { return v ? v->type : SP_VALUE_NONE; }

void *sp_vector_data(sp_vector_t *v) { return v ? v->data : NULL; }

/* A vector argument of a call on ctx: present and on that context. */
#define CHECK_VEC(what, ctx, v)                                                         \
    do {                                                                                \
        SP_CHECK_ARG((ctx) != NULL && (v) != NULL, "%s: ctx or vector is NULL", what);   \
        SP_CHECK_ARG((v)->ctx == (ctx), "%s: vector belongs to another context", what);  \
    } while (0)

sp_status_t sp_vector_copy_from_host(sp_context_t *ctx, sp_vector_t *v, const void *h_values)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    CHECK_VEC("sp_vector_copy_from_host", ctx, v);
    SP_CHECK_ARG(h_values != NULL || v->n == 0, "sp_vector_copy_from_host: h_values is NULL");
    if (ctx->kind == SP_DEVICE_CUDA) SP_TRY(sp__cuda_copy(ctx, v->data, h_values, bytes_of(v), 1));
    else if (v->n) memcpy(v->data, h_values, bytes_of(v));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_vector_copy_to_host(sp_context_t *ctx, const sp_vector_t *v, void *h_values)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    CHECK_VEC("sp_vector_copy_to_host", ctx, v);
    SP_CHECK_ARG(h_values != NULL || v->n == 0, "sp_vector_copy_to_host: h_values is NULL");
    if (ctx->kind == SP_DEVICE_CUDA) SP_TRY(sp__cuda_copy(ctx, h_values, v->data, bytes_of(v), -1));
    else if (v->n) memcpy(h_values, v->data, bytes_of(v));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_vector_fill(sp_context_t *ctx, sp_vector_t *v, double value)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    CHECK_VEC("sp_vector_fill", ctx, v);
    SP_TRY(sp__vec_fill(ctx, v, value));
done:
    return sp__context_record(ctx, st);
}

sp_status_t sp_vector_copy(sp_context_t *ctx, const sp_vector_t *src, sp_vector_t *dst)
{
    sp_status_t st = SP_STATUS_SUCCESS;
    CHECK_VEC("sp_vector_copy", ctx, src);
    CHECK_VEC("sp_vector_copy", ctx, dst);
    SP_CHECK_ARG(src->type == dst->type && src->n == dst->n,
                 "sp_vector_copy: source has %lld values of type %d, destination %lld of "
                 "type %d", (long long)src->n, (int)src->type, (long long)dst->n, (int)dst->type);
    if (src == dst || src->n == 0) goto done;
    if (ctx->kind == SP_DEVICE_CUDA) SP_TRY(sp__cuda_copy(ctx, dst->data, src->data, bytes_of(src), 0));
    else memcpy(dst->data, src->data, bytes_of(src));
done:
    return sp__context_record(ctx, st);
}
