/* Number formatting for the writers (number_format.c): integers without printf, and
 * floating-point values with the fewest significant digits that read back (strtod /
 * strtof, and sp__parse_f64 / sp__parse_f32) to the same bits. Each function writes at
 * p, returns the end, and writes no terminating NUL. */
#ifndef SP_NUMBER_FORMAT_H
#define SP_NUMBER_FORMAT_H

#include <stdint.h>

enum {
    SP_FORMAT_U64_MAX = 20, /* bytes of the longest uint64 */
    SP_FORMAT_F64_MAX = 24  /* bytes of the longest double: -1.2345678901234567e-308 */
};

char *sp__format_u64(char *p, uint64_t v);
char *sp__format_i64(char *p, int64_t v);
/* Shortest round trip; among the shortest, the one closest to v. Plain notation for
 * decimal exponents -4..16 (float: -4..8), else d.ddde+XX like printf's %g; "-0",
 * "inf", "-inf", "nan" for the special values. */
char *sp__format_f64(char *p, double v);
char *sp__format_f32(char *p, float v);

#endif /* SP_NUMBER_FORMAT_H */
