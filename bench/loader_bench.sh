#!/usr/bin/env bash
# Loader throughput: libsp's Matrix Market reader (spbench --load-only) against the
# fscanf baseline in the style of NIST mmio (mtx_fscanf_baseline) and fast_matrix_market,
# on one file and several thread counts, page cache warm. Prints a markdown table of
# medians; MB are 10^6 bytes of the file as stored. nnz is what each reader reports
# (for symmetric files the baseline counts stored entries, the others expanded ones).
#
# usage: bench/loader_bench.sh [-b BUILD_DIR] [-r REPEATS] FILE.mtx [THREADS ...]
#   BUILD_DIR: where spbench and mtx_fscanf_baseline were built (default $SP_BUILD or build)
#   REPEATS:   timed runs per reader and thread count (default 5)
#   THREADS:   thread counts for the parallel readers (default: 1 and all cores)
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
build=${SP_BUILD:-$root/build}
repeats=5
while getopts "b:r:h" opt; do
    case $opt in
        b) build=$OPTARG ;;
        r) repeats=$OPTARG ;;
        *) sed -n '8,11p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ ! -r "$1" ]; then
    echo "loader_bench.sh: need a readable .mtx file (got '${1:-}')" >&2
    exit 1
fi
case $repeats in ''|*[!0-9]*|0) echo "loader_bench.sh: -r needs a positive count" >&2; exit 1 ;; esac
file=$1
shift
threads=${*:-1 $(nproc)}
bytes=$(stat -c %s "$file")

spbench=$build/bench/spbench
baseline=$build/bench/mtx_fscanf_baseline

# Keep the file in the page cache so every reader parses from memory, not disk.
cat "$file" > /dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { awk -v key="$1:" '$1 == key { print $2; exit }'; }

rows=()     # table rows, "reader|threads|nnz|seconds"
note() { rows+=("$1|${2:--}|-|$3"); }

# Run "$@" `runs` times; each run must print "nnz:" and "MB/s:" lines. Records the median.
measure() {
    local label=$1 nthreads=$2 runs=$3
    shift 3
    local out mbs="" nnz="" k
    for ((k = 0; k < runs; k++)); do
        if ! out=$("$@" 2>&1); then
            note "$label" "$nthreads" "failed: $(echo "$out" | tail -n 1)"
            return
        fi
        nnz=$(echo "$out" | field nnz)
        mbs+="$(echo "$out" | field MB/s)"$'\n'
    done
    local m
    m=$(printf '%s' "$mbs" | median)
    if [ -z "$m" ] || [ -z "$nnz" ]; then
        note "$label" "$nthreads" "failed: no nnz:/MB/s: lines in its output"
        return
    fi
    rows+=("$label|$nthreads|$nnz|$(awk -v b="$bytes" -v m="$m" 'BEGIN { printf "%.6f", b / 1e6 / m }')")
}

# fast_matrix_market: one Python process per thread count, repeats timed reads in it
# (the import is not timed); prints the median as MB/s.
fmm_reads() {
    python3 - "$file" "$1" "$repeats" <<'PY'
import os, statistics, sys, time
import fast_matrix_market as fmm
path, threads, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
size = os.path.getsize(path)
times, nnz = [], 0
for _ in range(repeats):
    t0 = time.perf_counter()
    (data, (i, j)), shape = fmm.read_coo(path, parallelism=threads)
    times.append(time.perf_counter() - t0)
    nnz = len(data)
    del data, i, j
print(f"nnz: {nnz}")
print(f"MB/s: {size / 1e6 / statistics.median(times):.6f}")
PY
}

if [ -x "$baseline" ]; then
    measure "fscanf (mmio style)" 1 "$repeats" "$baseline" "$file"
else
    note "fscanf (mmio style)" 1 "mtx_fscanf_baseline not built ($baseline)"
fi
for t in $threads; do
    if [ -x "$spbench" ]; then
        measure "libsp sp_mtx_read" "$t" "$repeats" "$spbench" --load-only "$file" --threads "$t"
    else
        note "libsp sp_mtx_read" "$t" "spbench not built"
    fi
done
if python3 -c "import fast_matrix_market" 2> /dev/null; then
    for t in $threads; do
        measure "fast_matrix_market" "$t" 1 fmm_reads "$t"
    done
else
    note "fast_matrix_market" "" "not installed (pip install fast_matrix_market)"
fi

base_s=""
for r in "${rows[@]}"; do
    IFS='|' read -r label t nnz s <<< "$r"
    [ "$label" = "fscanf (mmio style)" ] && [ "$nnz" != "-" ] && base_s=$s
done

echo "Loader benchmark: $file ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB), median of $repeats, page cache warm"
echo "Host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2> /dev/null | sed 's/.*: //')"
echo
echo "| reader | threads | nnz | seconds | MB/s | Mentries/s | vs fscanf |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for r in "${rows[@]}"; do
    IFS='|' read -r label t nnz s <<< "$r"
    if [ "$nnz" = "-" ]; then
        echo "| $label | $t | - | $s | - | - | - |"
    else
        awk -v l="$label" -v t="$t" -v n="$nnz" -v s="$s" -v b="$bytes" -v base="$base_s" 'BEGIN {
            ratio = base == "" ? "-" : sprintf("%.2fx", base / s)
            printf "| %s | %s | %d | %.3f | %.1f | %.2f | %s |\n", l, t, n, s, b / 1e6 / s, n / 1e6 / s, ratio }'
    fi
done
