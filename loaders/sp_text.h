/* Internal text-input machinery shared by the Matrix Market and edge-list readers:
 * whole-file input (plain or gzip), exact number parsing, line-aligned chunking and a
 * small thread pool. Host C only (libc, pthreads, zlib). */
#ifndef SP_TEXT_H
#define SP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sp.h"

/* A whole input file in memory, gzip inflated when the file starts with the gzip magic
 * number. data is followed by one '\0' not counted in len. */
typedef struct sp_text {
    char *data;
    size_t len;
    const char *path; /* borrowed: the caller's path, for messages */
    int mapped;       /* internal: data is an mmap */
} sp_text_t;

/* Errors: SP_STATUS_IO_ERROR naming the path and errno's text, PARSE_ERROR for a corrupt
 * gzip stream, ALLOC_FAILED. */
sp_status_t sp__text_open(const char *path, sp_text_t *text);
void sp__text_close(sp_text_t *text);

/* Number parsers: parse at *p (no leading blanks skipped), stop at the first byte that
 * cannot continue the number, advance *p past it. Return 0 on success, SP_NUM_SYNTAX if
 * no number starts at *p, SP_NUM_RANGE if the value does not fit (integers) or
 * overflows to infinity from finite digits (floats). Floats accept what strtod accepts in
 * the C locale for decimal input (sign, digits, '.', exponent, "nan", "inf",
 * "infinity", any case) and give the same bits as strtod (f64) / strtof (f32). */
enum { SP_NUM_OK = 0, SP_NUM_SYNTAX = 1, SP_NUM_RANGE = 2 };
int sp__parse_i64(const char **p, const char *end, int64_t *out);
int sp__parse_f64(const char **p, const char *end, double *out);
int sp__parse_f32(const char **p, const char *end, float *out);

/* A piece of the text that starts at a line start and ends after a '\n' (or at the end
 * of the text); first_line is the 1-based line number of its first line. */
typedef struct sp_chunk {
    const char *begin, *end;
    int64_t first_line;
} sp_chunk_t;

/* Split [begin, end) into at most max_chunks line-aligned chunks of similar size, the
 * first starting at line first_line; *nchunks receives the count (0 for empty input).
 * Line numbers count '\n', and a lone '\r' too (old Mac files). */
sp_status_t sp__text_split(const char *begin, const char *end, int64_t first_line,
                           int max_chunks, sp_chunk_t **chunks, int *nchunks);

/* Run task(i, arg) for i in [0, ntasks) on up to nthreads threads (<= 0: all cores).
 * Returns the status of the lowest-numbered failing task and records its message on the
 * calling thread, or SP_STATUS_SUCCESS. */
sp_status_t sp__parallel_for(int nthreads, int ntasks, sp_status_t (*task)(int i, void *arg),
                             void *arg);

#endif /* SP_TEXT_H */
