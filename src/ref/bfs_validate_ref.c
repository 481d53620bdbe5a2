/* Validation of a BFS result by the Graph500 rules (plus levels equal to a reference):
 * properties of any correct answer, so it accepts every valid parent tree, not only the
 * reference's. On a directed graph "every edge joins levels differing by at most one"
 * becomes: an edge (u, v) from a reached u reaches v with level[v] <= level[u] + 1 (on a
 * symmetric graph the two directions together are the Graph500 rule). */
#include <stdarg.h>
#include <stdio.h>

#include "ref_internal.h"

SP__PRINTF(3, 4)
static int fail(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return 0;
}

static int has_edge(const sp_csr_t *g, int32_t u, int32_t v)
{
    int64_t lo = sp__csr_at(g, u), hi = sp__csr_at(g, u + 1);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (g->idx[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sp__csr_at(g, u + 1) && g->idx[lo] == v;
}

/* Every parent chain ends at the source: walk up from each reached vertex, marking the
 * path (1) until a vertex known to reach the source (2); meeting a 1 is a cycle. */
static int check_tree(const sp_csr_t *g, int32_t source, const int32_t *level,
                      const int32_t *parent, char *why, size_t why_len)
{
    unsigned char *state = sp__calloc_array((size_t)g->nrows, 1);
    int ok = 1;
    if (!state) return fail(why, why_len, "bfs validate: out of host memory");
    state[source] = 2;
    for (int32_t v = 0; v < g->nrows && ok; v++) {
        int32_t x = v;
        if (level[v] < 0) continue;
        while (state[x] == 0) {
            state[x] = 1;
            x = parent[x];
        }
        if (state[x] == 1)
            ok = fail(why, why_len,
                      "rule cycle: the parent chain from vertex %d returns to vertex %d without "
                      "reaching the source %d", v, x, source);
        for (x = v; state[x] == 1; x = parent[x]) state[x] = 2;
    }
    sp__free(state);
    return ok;
}

/* Source, ranges, and parents set exactly for the reached vertices. */
static int check_shape(const sp_csr_t *g, int32_t source, const int32_t *level,
                       const int32_t *parent, char *why, size_t why_len)
{
    int64_t n = g->nrows;
    if (level[source] != 0)
        return fail(why, why_len, "rule source: level[%d] = %d, not 0", source, level[source]);
    if (parent && parent[source] != source)
        return fail(why, why_len, "rule source: parent[%d] = %d, not the source itself", source,
                    parent[source]);
    for (int32_t v = 0; v < n; v++) {
        if (level[v] < -1 || level[v] >= n)
            return fail(why, why_len, "rule range: level[%d] = %d outside -1..%lld", v, level[v],
                        (long long)n - 1);
        if (!parent || v == source) continue;
        if (parent[v] < -1 || parent[v] >= n)
            return fail(why, why_len, "rule range: parent[%d] = %d outside -1..%lld", v,
                        parent[v], (long long)n - 1);
        if ((level[v] < 0) != (parent[v] < 0))
            return fail(why, why_len,
                        "rule reached: vertex %d has level %d but parent %d (both -1 or neither)",
                        v, level[v], parent[v]);
        if (parent[v] >= 0 && level[parent[v]] < 0)
            return fail(why, why_len, "rule reached: parent %d of vertex %d is unreached",
                        parent[v], v);
    }
    return 1;
}

int sp__ref_bfs_validate_start(const sp_csr_t *g, int32_t source, const int32_t *level,
                               const int32_t *parent, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if (!g || !level || g->nrows != g->ncols || source < 0 || source >= g->nrows)
        return fail(why, why_len, "bfs validate: bad arguments (graph, level or source %d)",
                    source);
    if (!check_shape(g, source, level, parent, why, why_len)) return 0;
    if (parent && !check_tree(g, source, level, parent, why, why_len)) return 0;
    return 1;
}

int sp__ref_bfs_validate_rows(const sp_csr_t *g, int32_t source, const int32_t *level,
                              const int32_t *parent, int rule, int64_t lo, int64_t hi,
                              char *why, size_t why_len)
{
    for (int64_t i = lo; rule == 0 && parent && i < hi; i++) {
        int32_t v = (int32_t)i, p = parent[v];
        if (v == source || p < 0) continue;
        if (level[p] != level[v] - 1)
            return fail(why, why_len,
                        "rule tree edge: vertex %d at level %d has parent %d at level %d", v,
                        level[v], p, level[p]);
        if (!has_edge(g, p, v))
            return fail(why, why_len, "rule parent edge: parent edge (%d, %d) of vertex %d is "
                        "not in the graph", p, v, v);
    }
    for (int64_t i = lo; rule == 1 && i < hi; i++) {
        int32_t u = (int32_t)i;
        if (level[u] < 0) continue;
        for (int64_t k = sp__csr_at(g, u); k < sp__csr_at(g, u + 1); k++) {
            int32_t v = g->idx[k];
            if (level[v] < 0)
                return fail(why, why_len, "rule component: vertex %d is reachable (edge from "
                            "vertex %d at level %d) but unreached", v, u, level[u]);
            if (level[v] > level[u] + 1)
                return fail(why, why_len, "rule edge: edge (%d, %d) joins level %d to level %d",
                            u, v, level[u], level[v]);
        }
    }
    return 1;
}

int sp__ref_bfs_validate_reference(const sp_csr_t *g, const int32_t *level,
                                   const int32_t *ref_level, char *why, size_t why_len)
{
    for (int32_t v = 0; ref_level && v < g->nrows; v++)
        if (level[v] != ref_level[v])
            return fail(why, why_len, "rule reference: level[%d] = %d, the reference has %d", v,
                        level[v], ref_level[v]);
    return 1;
}

int sp__ref_bfs_validate(const sp_csr_t *g, int32_t source, const int32_t *level,
                         const int32_t *parent, const int32_t *ref_level, char *why,
                         size_t why_len)
{
    return sp__ref_bfs_validate_start(g, source, level, parent, why, why_len) &&
           sp__ref_bfs_validate_rows(g, source, level, parent, 0, 0, g->nrows, why, why_len) &&
           sp__ref_bfs_validate_rows(g, source, level, parent, 1, 0, g->nrows, why, why_len) &&
           sp__ref_bfs_validate_reference(g, level, ref_level, why, why_len);
}
