/* Internal text-input machinery shared by the Matrix Market and edge-list readers:
 * whole-file input (plain or gzip), exact number parsing, line-aligned chunking and a
 * small thread pool. Host C only (libc, pthreads, and zlib when SP_HAVE_ZLIB). */
#ifndef SP_TEXT_H
#define SP_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sp.h"
#include "sp_progress.h"

/* Bytes readable (zero) after the end of every piece of text the loaders hand to a parser:
 * a whole text, a header prefix, a streamed chunk. */
enum { SP_TEXT_PAD = 64 };

/* A text in memory: a whole input file (sp__text_open, gzip inflated when the file starts
 * with the gzip magic number), or the first lines of a streamed one (sp__source_prefix).
 * data is followed by SP_TEXT_PAD '\0' bytes not counted in len. */
typedef struct sp_text {
    char *data;
    size_t len;
    const char *path; /* borrowed: the caller's path, for messages */
    int partial;      /* a prefix: more input follows data + len (which ends a line) */
} sp_text_t;

/* The whole file, read (never mapped). Errors: SP_STATUS_IO_ERROR naming the path and
 * errno's text, PARSE_ERROR for a corrupt gzip stream, NOT_COMPILED for any gzip stream
 * when built without zlib, ALLOC_FAILED. */
sp_status_t sp__text_open(const char *path, sp_text_t *text);
void sp__text_close(sp_text_t *text);

/* ---- streaming input (text_source.c, text_stream.c) ----
 * A source is an input read from its start in chunks, never mapped: a regular plain file
 * by pread at known offsets (so threads read side by side), anything else (pipes,
 * standard input as "-", devices, gzip streams inflated as they are read) in order. A
 * UTF-8 byte-order mark at the start is skipped. */
typedef struct sp_source sp_source_t;

sp_status_t sp__source_open(const char *path, sp_source_t **src);
void sp__source_close(sp_source_t *src);
/* The display name: the path, or "<stdin>" for "-". */
const char *sp__source_name(const sp_source_t *src);
/* Whether the input is a regular plain file whose body size is known (*bytes: its size
 * after the BOM). */
int sp__source_sized(const sp_source_t *src, uint64_t *bytes);

/* The first lines of the input: at least min_bytes read (or all of it), text->len ending
 * after the last whole line unless it is all the input (text->partial 0); *avail (may be
 * NULL): the bytes read, a part of a line after text->len included. Called again with a
 * larger min_bytes it reads on (data may move). The text belongs to the source. */
sp_status_t sp__source_prefix(sp_source_t *src, size_t min_bytes, sp_text_t *text,
                              size_t *avail);

/* Refuse inputs (gzip ones: a file size already bounds plain ones) that inflate to more
 * than max_bytes; why says what the limit comes from, for the message. */
void sp__source_limit(sp_source_t *src, uint64_t max_bytes, const char *why);

/* A piece of the body handed to a reader: whole lines, SP_TEXT_PAD zero bytes after end.
 * exact: everything before it has been placed, and first_line, offset and part_offset
 * give its place in the input; otherwise they are 1, 0, 0 and the reader parses it
 * alone, to be placed (or, where its place changes the verdict, parsed again exactly). */
typedef struct sp_piece {
    const char *begin, *end;
    int64_t seq;          /* 0, 1, ... in input order */
    int exact;
    int64_t first_line;   /* number of its first line */
    int64_t offset;       /* entries before it */
    int64_t part_offset;  /* sum of part before it */
    void *out;            /* the reader's arrays for it; NULL: the final arrays (exact) */
    /* Set by the reader's parse: */
    int64_t count;        /* entries */
    int64_t lines;        /* lines, a last one without a break included */
    int64_t part;         /* prefix-summed for the pieces after it (METIS vertex lines) */
    int64_t aux;          /* kept per piece (off-diagonal entries) */
    int64_t max;          /* kept per piece (largest id) */
} sp_piece_t;

/* A piece's own arrays, which readers' out_create / out_free make of this: up to
 * SP_PIECE_ARRAYS arrays of cap elements, array i of size[i] bytes each (0: none). vbase:
 * free for the reader (METIS: the vertex its parse gave the piece's first line). */
enum { SP_PIECE_ARRAYS = 5 };
typedef struct sp_piece_arrays {
    void *a[SP_PIECE_ARRAYS];
    int64_t cap, vbase;
} sp_piece_arrays_t;
sp_status_t sp__piece_arrays_create(const size_t size[SP_PIECE_ARRAYS], int64_t cap,
                                    sp_piece_arrays_t **out);
void sp__piece_arrays_free(sp_piece_arrays_t *o);

/* What the engine keeps of each placed piece, in input order. */
typedef struct sp_piece_info {
    int64_t offset, count, first_line, lines, part_offset, part, aux, max;
} sp_piece_info_t;

/* A reader of a body: how many entries a piece of n bytes may hold at most; arrays per
 * piece; parse (piece->out NULL: into the final arrays at piece->offset, which reserve
 * made room for); fits (NULL: always): whether a piece parsed alone keeps its verdict at
 * its place, else it is parsed again exactly; reserve: final arrays for at least n
 * entries, *cap what they now hold (never called while place runs); place: copy a piece's
 * arrays to its offset in the final ones. */
typedef struct sp_stream_reader {
    void *ctx;
    int64_t (*bound)(void *ctx, size_t bytes);
    sp_status_t (*out_create)(void *ctx, int64_t cap, void **out);
    void (*out_free)(void *ctx, void *out);
    sp_status_t (*parse)(void *ctx, sp_piece_t *piece);
    int (*fits)(void *ctx, const sp_piece_t *piece);
    sp_status_t (*reserve)(void *ctx, int64_t n, int64_t *cap);
    void (*place)(void *ctx, const sp_piece_t *piece);
    sp__progress_t *progress; /* NULL: none; else the bytes of each piece as it is placed */
} sp_stream_reader_t;

/* What a run read: the pieces in order, the totals. */
typedef struct sp_stream_result {
    sp_piece_info_t *pieces; /* release with sp__free */
    int64_t npieces;
    int64_t entries, parts;
    int64_t last_line;       /* number of the input's last line */
} sp_stream_result_t;

/* Read the body of src from byte body (of the prefix last returned) at line body_line
 * to the end, in chunks parsed on nthreads threads (>= 1; one thread parses straight
 * into the final arrays) and placed in input order as soon as the entries before them
 * are known. Memory: the final arrays plus about nthreads + 2 chunks and their arrays.
 * Errors: the first piece's in input order, from its exact parse; IO_ERROR naming the
 * file when it changes or shrinks while being read. */
sp_status_t sp__stream_run(sp_source_t *src, size_t body, int64_t body_line, int nthreads,
                           const sp_stream_reader_t *rd, sp_stream_result_t *res);

/* The caller's progress callback for a body starting at byte body: its total is the body's
 * size where the input is a regular plain file, else 0 (unknown: pipes and gzip report
 * bytes without a total). */
void sp__stream_progress_init(sp__progress_t *p, const sp_source_t *src, size_t body,
                              void (*fn)(void *, int64_t, int64_t), void *user);

/* The engine's side of a source. sp__source_start_body: the body starts at byte body of
 * the last prefix and the chunks are chunk bytes. sp__source_chunk: the next chunk of the
 * body (any thread: regular files by ticket, read side by side; others in order under the
 * source's lock) into *buf (capacity *cap, grown as needed; SP_TEXT_PAD zero bytes after
 * the chunk), its begin, end and seq set in piece; *got 0 at the end of the input.
 * sp__source_stop: no chunk after seq is wanted. sp__source_finish: IO_ERROR if a
 * regular file changed (size or time) while it was read. sp__source_buffer_free: a chunk
 * buffer of capacity cap. */
void sp__source_buffer_free(char *buf, size_t cap);
sp_status_t sp__source_start_body(sp_source_t *src, size_t body, size_t chunk);
sp_status_t sp__source_chunk(sp_source_t *src, char **buf, size_t *cap, sp_piece_t *piece,
                             int *got);
void sp__source_stop(sp_source_t *src, int64_t seq);
/* Read only share rank of parts of the body (before sp__stream_run): of a regular plain
 * file, the chunks [T rank / parts, T (rank + 1) / parts) of its T, cut at line breaks by
 * the same rule as every chunk, so the shares of parts readers hold each line once; the
 * pieces are numbered from 0 and know nothing of the lines before the share (first_line
 * and part_offset count from its start). Other inputs cannot be entered in the middle:
 * nothing is changed and the result says whether this rank reads the whole input (rank 0)
 * or nothing (the others); 1 where the share was set. */
int sp__source_share(sp_source_t *src, int rank, int parts);
sp_status_t sp__source_finish(sp_source_t *src);

/* Bytes per chunk: 4 MiB, or SP_TEST_CHUNK_BYTES from the environment (tests: tiny
 * chunks so that small files cross many boundaries). */
size_t sp__stream_chunk_bytes(void);

/* Copy n bytes of input into buf (size cap >= 5) for a message: printable ASCII as it is,
 * anything else as \xHH, cut with "..." when it does not fit. Returns buf. */
const char *sp__text_quote(char *buf, size_t cap, const char *p, size_t n);

/* Number parsers: parse at *p (no leading blanks skipped), stop at the first byte that
 * cannot continue the number, advance *p past it. Return 0 on success, SP_NUM_SYNTAX if
 * no number starts at *p, SP_NUM_RANGE if the value does not fit (integers) or
 * overflows to infinity from finite digits (floats). Floats accept what strtod accepts in
 * the C locale for decimal input (sign, digits, '.', exponent, "nan", "inf",
 * "infinity", any case) and give the same bits as strtod (f64) / strtof (f32). */
enum { SP_NUM_OK = 0, SP_NUM_SYNTAX = 1, SP_NUM_RANGE = 2 };
int sp__parse_i64(const char **p, const char *end, int64_t *out);

/* The high bit of each byte of w that equals c, nothing else (exact: no carry crosses
 * bytes). */
static inline uint64_t sp__bytes_equal(uint64_t w, unsigned char c)
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
    uint64_t x = w ^ (0x0101010101010101ull * c);
    return ~(((x & low7) + low7) | x | low7);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SP_SWAR_DIGITS 1
/* The value of eight ASCII digits loaded as one little-endian word (first digit in the
 * lowest byte): pairs, then quads, then the whole, each step one multiply that adds a
 * lane times 10^k to its upper neighbour (10 * 2^8 + 1, 100 * 2^16 + 1,
 * 10000 * 2^32 + 1) on lanes that cannot overflow into each other. */
static inline uint64_t sp__eight_digit_value(uint64_t w)
{
    w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;                 /* pairs in bytes 0,2,4,6 */
    w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;             /* quads in 0, 4 */
    return ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

/* Bytes of w that are not '0'..'9' as non-zero bytes: a digit keeps high nibble 3 after
 * adding 6; carries only reach later bytes, so the first non-zero byte is exact. */
static inline uint64_t sp__nondigit_bytes(uint64_t w)
{
    return ((w & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
           (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull);
}

/* The 8-10 digit tail of sp__parse_short_uint (its first eight bytes are digits): the
 * second word's digits appended, the value checked against 32 bits in 64-bit arithmetic
 * (10 digits reach 9999999999 < 2^64), so the overflow test is exact. */
static inline int sp__parse_long_uint(const char **p, const char *end, uint32_t *v)
{
    const char *s = *p;
    uint64_t hi, w;
    if (end - s < 16) return 0;
    memcpy(&hi, s, sizeof hi);
    memcpy(&w, s + 8, sizeof w);
    uint64_t bad = sp__nondigit_bytes(w);
    int nd = bad ? __builtin_ctzll(bad) / 8 : 8;
    if (nd > 2) return 0;
    uint64_t x = sp__eight_digit_value(hi), d0 = w & 0xF, d1 = (w >> 8) & 0xF;
    x = nd == 0 ? x : nd == 1 ? x * 10 + d0 : x * 100 + d0 * 10 + d1;
    if (x >> 32) return 0;
    *v = (uint32_t)x;
    *p = s + 8 + nd;
    return 1;
}

/* The readers' hot case of an unsigned integer: 1-10 digits (leading zeros counted) of a
 * value below 2^32, ended by a non-digit, read a word at a time: one 8-byte load for 1-7
 * digits, two for 8-10, no loop over bytes. Reads only inside [*p, end): a number of 1-7
 * digits needs 8 bytes before end, a longer one 16. 1 with its value and *p past it; 0,
 * moving nothing, for any other form (11 or more digits, 2^32 or more, too close to
 * end), which sp__parse_i64 then reads and judges. */
static inline int sp__parse_short_uint(const char **p, const char *end, uint32_t *v)
{
    const char *s = *p;
    if (end - s < 8) return 0;
    uint64_t w;
    memcpy(&w, s, sizeof w);
    uint64_t bad = sp__nondigit_bytes(w);
    if (__builtin_expect(bad == 0, 0)) return sp__parse_long_uint(p, end, v);
    int nd = __builtin_ctzll(bad) / 8;
    if (nd == 0) return 0;
    w = (w << (64 - 8 * nd)) | (0x3030303030303030ull >> (8 * nd));
    *v = (uint32_t)sp__eight_digit_value(w);
    *p = s + nd;
    return 1;
}

/* A signed integer field on the readers' hot path (the values of an integer Matrix
 * Market file): an optional sign, then what sp__parse_short_uint reads; as it, 1 with
 * the value, 0 moving nothing for any other form (sp__parse_i64 reads those). */
static inline int sp__parse_short_int(const char **p, const char *end, int64_t *v)
{
    const char *s = *p;
    uint32_t u;
    int neg = s < end && *s == '-';
    s += neg | (s < end && *s == '+');
    if (!sp__parse_short_uint(&s, end, &u)) return 0;
    *v = neg ? -(int64_t)u : (int64_t)u;
    *p = s;
    return 1;
}

/* The hot start of an entry or edge line: two integers as sp__parse_short_uint reads
 * them with one blank (space or tab) between, their values in *i and *j: the byte after
 * the second; NULL for any other form. Reads nothing at or past end. */
static inline const char *sp__parse_short_pair(const char *s, const char *end, uint32_t *i,
                                               uint32_t *j)
{
    if (!sp__parse_short_uint(&s, end, i) || (*s != ' ' && *s != '\t')) return NULL;
    s++;
    return sp__parse_short_uint(&s, end, j) ? s : NULL;
}
#else
#define SP_SWAR_DIGITS 0
#endif
int sp__parse_f64(const char **p, const char *end, double *out);
int sp__parse_f32(const char **p, const char *end, float *out);
/* The hot short form of a double ([sign] digits [. digits] [e [sign] digits]: at most 19
 * significant digits, leading zeros of the fraction of a value below 1 not counted when
 * the integer part is "0" or empty and there are at most 7 of them (%.17g writes up to
 * 4), an exponent of at most 7 digits; with or without the point or the exponent), read
 * a word at a time without bounds checks, resolved by Clinger's fast path when exact,
 * else Eisel-Lemire. Reads only [s, s + SP_NUM_F64_FAST_READ): the caller guarantees that
 * many readable bytes from s (its number then also ends inside them). The number's end,
 * with the strtod value in *out; NULL, writing nothing, for anything else (nan, inf, 20
 * or more digits, results strtod would make subnormal or infinite, the rare products too
 * close to a rounding boundary for the 128-bit table: sp__parse_f64 then reads it), and
 * always NULL where the platform lacks the word-at-a-time paths. The end is returned,
 * not stored, because the next field's parse waits on it. */
enum { SP_NUM_F64_FAST_READ = 52 };
const char *sp__parse_f64_fast(const char *s, double *out);

/* A piece of the text that starts at a line start and ends after a '\n' (or at the end
 * of the text); first_line is the 1-based line number of its first line. */
typedef struct sp_chunk {
    const char *begin, *end;
    int64_t first_line;
    int no_cr; /* set by sp__text_split: the chunk holds no '\r' (0: not known) */
} sp_chunk_t;

/* Split [begin, end) into at most max_chunks line-aligned chunks of similar size, the
 * first starting at line first_line; *nchunks receives the count (0 for empty input) and
 * *chunks an array the caller releases with sp__free (also when *nchunks is 0).
 * Line numbers count '\n', and a lone '\r' too (old Mac files). Every chunk but the last
 * is searched for '\r' (to number the lines after it) and marked no_cr when it has none;
 * the last is left unread, so that one chunk costs no pass over the text. */
sp_status_t sp__text_split(const char *begin, const char *end, int64_t first_line,
                           int max_chunks, sp_chunk_t **chunks, int *nchunks);

/* Split [begin, end) for parsing on nthreads threads (>= 1): about 4 chunks per thread
 * for balance, but none under 64 KiB, below which a thread costs more than it saves;
 * one chunk for one thread. Otherwise as sp__text_split. */
sp_status_t sp__text_split_for_threads(const char *begin, const char *end, int64_t first_line,
                                       int nthreads, sp_chunk_t **chunks, int *nchunks);

/* A walk over the lines of a chunk: '\n', "\r\n" and a lone '\r' each end one line. */
typedef struct sp_text_lines {
    const char *p, *end; /* the rest of the chunk */
    int64_t line;        /* number of the line last returned */
    int has_cr;          /* some '\r' in the chunk: line ends cannot be found by memchr */
} sp_text_lines_t;

/* Start at the chunk's first line (searching it for '\r' unless chunk->no_cr). */
void sp__text_lines_init(sp_text_lines_t *it, const sp_chunk_t *chunk);
/* Start at the chunk's first line without searching it, for a walk by
 * sp__text_line_begin / sp__text_line_finish only, which find every kind of line break
 * byte by byte (sp__text_next_line then walks bytes too). */
void sp__text_lines_init_walk(sp_text_lines_t *it, const sp_chunk_t *chunk);
/* Start at line 1 of the whole text, without searching it: for the few lines of a
 * header, read before the body is split. */
void sp__text_lines_whole(sp_text_lines_t *it, const sp_text_t *text);

/* Lines of the chunk holding more than blanks whose first non-blank byte is not one of
 * `comments` (the count passes of the readers). A chunk without '\r', comment bytes or
 * blank-only lines is counted by its line breaks, a word at a time. */
int64_t sp__text_count_content_lines(const sp_chunk_t *chunk, const char *comments);

/* The walk itself is inline: it runs once per line on the readers' hot path. */

/* First byte of [p, e) that is not a space or tab (e if none). */
static inline const char *sp__text_skip_blanks(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* Past the line break that ends the line holding p (the chunk's end if none). */
static inline const char *sp__text_after_break(const sp_text_lines_t *it, const char *p)
{
    while (p < it->end && *p != '\n' && *p != '\r') p++;
    if (p < it->end) p += (*p == '\r' && p + 1 < it->end && p[1] == '\n') ? 2 : 1;
    return p;
}

/* The next line as [*b, *e): leading blanks skipped, its line break excluded; it->p then
 * stands at the following line and it->line holds its number. Returns 0 at the end. */
static inline int sp__text_next_line(sp_text_lines_t *it, const char **b, const char **e)
{
    if (it->p >= it->end) return 0;
    const char *s = it->p, *q;
    if (!it->has_cr) {
        q = memchr(s, '\n', (size_t)(it->end - s));
        *e = q ? q : it->end;
        it->p = q ? q + 1 : it->end;
    } else {
        for (q = s; q < it->end && *q != '\n' && *q != '\r'; q++) continue;
        *e = q;
        it->p = sp__text_after_break(it, q);
    }
    it->line++;
    *b = sp__text_skip_blanks(s, *e);
    return 1;
}

/* The same walk for a parser that finds the end of each line itself, reading on through
 * the rest of the chunk (a line break stops every field): sp__text_line_begin gives the
 * next line's first non-blank byte (0 at the end; it->line holds its number), and
 * sp__text_line_finish(it, p), p anywhere in that line, moves past its line break. */
static inline int sp__text_line_begin(sp_text_lines_t *it, const char **b)
{
    if (it->p >= it->end) return 0;
    it->line++;
    *b = sp__text_skip_blanks(it->p, it->end);
    return 1;
}

static inline void sp__text_line_finish(sp_text_lines_t *it, const char *p)
{
    it->p = sp__text_after_break(it, p);
}

/* Line breaks in [begin, end) ("\r\n" counts once); has_cr: whether the range holds a
 * '\r' (known to the caller, so the range is not searched twice). */
int64_t sp__text_count_breaks(const char *begin, const char *end, int has_cr);

/* Run task(i, arg) for i in [0, ntasks) on up to nthreads threads (<= 0: all cores).
 * Returns the status of the lowest-numbered failing task and records its message on the
 * calling thread, or SP_STATUS_SUCCESS. */
sp_status_t sp__parallel_for(int nthreads, int ntasks, sp_status_t (*task)(int i, void *arg),
                             void *arg);

/* An error recorded on one thread, carried to another: save it where it happened,
 * restore it (with its library source location) on the caller's thread. */
typedef struct sp_error_copy {
    sp_status_t status;
    char message[1024];
    char origin[256];
} sp_error_copy_t;
void sp__error_save(sp_error_copy_t *e, sp_status_t status);
sp_status_t sp__error_restore(const sp_error_copy_t *e);

/* Grow a's arrays (row, col, val if it has values) to hold n entries (capacity n); the
 * entries kept. ALLOC_FAILED leaves a as it was, with whatever arrays already moved
 * still valid. */
sp_status_t sp__coo_grow(sp_coo_t *a, int64_t n);

/* The per-part readers' filter: keep, in order and in place, the entries k < n of row and
 * col (and their values, vs bytes each; val unused when vs is 0) whose row lies in
 * [rb, re), or, with either set, whose column does (a symmetric file's or an undirected
 * graph's entry whose mirror lands in the rows). Returns how many were kept; *both (may
 * be NULL) gets how many of those are off the diagonal with row and column in range (the
 * ones whose mirror is added besides). */
int64_t sp__coo_keep_rows(int32_t *row, int32_t *col, void *val, size_t vs, int64_t n,
                          int64_t rb, int64_t re, int either, int64_t *both);

#endif /* SP_TEXT_H */
