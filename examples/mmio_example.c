/* A program written purely against the classic NIST mmio interface: read the coordinate
 * Matrix Market file named on the command line and print "M N nz sum", the sum of the
 * stored values (the entry count for pattern matrices). Built against libsp's sp_mmio.h. */
#include <stdio.h>
#include <stdlib.h>

#include "sp_mmio.h"

int main(int argc, char **argv)
{
    MM_typecode matcode;
    int M, N, nz, *I, *J;
    double *val, sum = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s matrix.mtx\n", argv[0]);
        return 2;
    }
    int ret = mm_read_mtx_crd(argv[1], &M, &N, &nz, &I, &J, &val, &matcode);
    if (ret != 0) {
        fprintf(stderr, "%s: cannot read (mmio code %d)\n", argv[1], ret);
        return 1;
    }
    char *type = mm_typecode_to_str(matcode);
    for (int k = 0; k < nz; k++) sum += val ? val[mm_is_complex(matcode) ? 2 * k : k] : 1.0;
    printf("%s: %s\n", argv[1], type ? type : "?");
    printf("%d %d %d %.17g\n", M, N, nz, sum);
    free(type);
    free(I);
    free(J);
    free(val);
    return 0;
}
