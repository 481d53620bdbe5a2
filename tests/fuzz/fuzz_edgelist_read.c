/* libFuzzer target for sp_edgelist_read. Byte 0 picks the format (SNAP, DIMACS, METIS),
 * byte 1 the options and value type; the rest is the file. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    static const sp_edgelist_format_t formats[3] = {SP_EDGELIST_SNAP, SP_EDGELIST_DIMACS,
                                                    SP_EDGELIST_METIS};
    static const sp_value_type_t types[4] = {SP_VALUE_NONE, SP_R_32F, SP_R_64F, SP_R_64F};
    uint8_t o = data[1];
    sp_edgelist_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.format = formats[data[0] % 3];
    opt.nthreads = 1;
    opt.undirected = o & 1;
    opt.drop_self_loops = (o >> 1) & 1;
    opt.merge_duplicates = (o >> 2) & 1;
    opt.compact_ids = (o >> 3) & 1;
    opt.one_based = (o >> 4) & 1;
    opt.nvertices = (o & 0x80) ? 1000 : 0;
    sp_value_type_t vt = types[(o >> 5) & 3];

    char path[64];
    int fd = fuzz_memfile(data + 2, size - 2, path, sizeof path);
    if (fd < 0) return 0;
    sp_coo_t *a = NULL;
    sp_edgelist_info_t info;
    memset(&info, 0, sizeof info);
    sp_clear_error();
    sp_status_t st = sp_edgelist_read(path, vt, &opt, &a, &info);
    if (st == SP_STATUS_SUCCESS) {
        fuzz_check_coo(a);
        FUZZ_REQUIRE(a->nrows == a->ncols, "graph %lld x %lld", (long long)a->nrows,
                     (long long)a->ncols);
        FUZZ_REQUIRE(opt.nvertices == 0 || opt.compact_ids || a->nrows >= opt.nvertices,
                     "%lld vertices, at least %lld asked", (long long)a->nrows,
                     (long long)opt.nvertices);
        FUZZ_REQUIRE(a->value_type == vt, "value type %d, %d asked", (int)a->value_type,
                     (int)vt);
        FUZZ_REQUIRE(info.edges_read >= 0 && info.self_loops_dropped >= 0 &&
                         info.duplicates_merged >= 0,
                     "negative counts in info");
        if (opt.compact_ids) {
            FUZZ_REQUIRE(info.id_map_len == a->nrows && (a->nrows == 0 || info.id_map),
                         "id map of %lld for %lld vertices", (long long)info.id_map_len,
                         (long long)a->nrows);
            for (int64_t v = 1; v < info.id_map_len; v++)
                FUZZ_REQUIRE(info.id_map[v - 1] < info.id_map[v], "id map not increasing");
        }
        if (opt.drop_self_loops)
            for (int64_t k = 0; k < a->nnz; k++)
                FUZZ_REQUIRE(a->row[k] != a->col[k], "self loop %d kept", a->row[k]);
        sp_free(info.id_map);
        sp_coo_free(a);
    } else {
        FUZZ_REQUIRE(a == NULL && info.id_map == NULL, "output written on failure");
        /* The one argument the file can contradict: nvertices below the header's n. */
        FUZZ_REQUIRE(st != SP_STATUS_INVALID_ARGUMENT ||
                         (opt.nvertices > 0 && strstr(sp_last_error(), "nvertices")),
                     "%s", sp_last_error());
        fuzz_check_failure(st, path, !fuzz_is_gzip(data + 2, size - 2));
    }
    close(fd);
    return 0;
}
