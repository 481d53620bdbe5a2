"""fast_matrix_market's reader timed for the loader benchmarks (loader_bench.sh and
loader_shapes.sh): one untimed tiny read first (setup outside the timing), then one timed
fmm.read_coo(path, parallelism=T). Prints nnz:, MB/s: and peak_rss_bytes: lines.

usage: python3 bench/fmm_read.py FILE.mtx THREADS"""
import io
import os
import resource
import sys
import time

import fast_matrix_market as fmm

path, threads = sys.argv[1], int(sys.argv[2])
fmm.read_coo(io.BytesIO(b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"),
             parallelism=threads)
t0 = time.perf_counter()
(data, (i, j)), shape = fmm.read_coo(path, parallelism=threads)
seconds = time.perf_counter() - t0
print(f"nnz: {len(data)}")
print(f"MB/s: {os.path.getsize(path) / 1e6 / seconds:.6f}")
print(f"peak_rss_bytes: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}")
