#!/usr/bin/env bash
# Loader throughput: libsp's Matrix Market reader (spbench --load-only) against the
# fscanf baseline in the style of NIST mmio (mtx_fscanf_baseline) and fast_matrix_market,
# on one file and several thread counts, page cache warm. Each round runs every reader
# once, in turn, so a drift of the shared machine reaches them all alike (BENCHMARKING.md);
# prints a markdown table of the medians; MB are 10^6 bytes of the file as stored. nnz is
# what each reader reports (for symmetric files the baseline counts stored entries, the
# others expanded ones).
#
# usage: bench/loader_bench.sh [-b BUILD_DIR] [-r REPEATS] FILE.mtx [THREADS ...]
#        bench/loader_bench.sh --shapes|--writer [options]   (bench/loader_shapes.sh)
#   BUILD_DIR: where spbench and mtx_fscanf_baseline were built (default $SP_BUILD or build)
#   REPEATS:   rounds, each a timed run of every reader and thread count (default 5)
#   THREADS:   thread counts for the parallel readers (default: 1 and all cores)
set -u
case ${1:-} in --shapes|--writer) exec bash "$(dirname "$0")/loader_shapes.sh" "$@" ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${SP_BUILD:-$root/build}
repeats=5
while getopts "b:r:h" opt; do
    case $opt in
        b) build=$OPTARG ;;
        r) repeats=$OPTARG ;;
        *) sed -n '10,14p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
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

# fast_matrix_market: one Python process per call, one timed read; the import and the
# first call's setup (a one-entry read) are not timed. Prints nnz and MB/s.
fmm_read() { python3 "$root/bench/fmm_read.py" "$file" "$1"; }

# One run of a reader: fscanf, libsp or fmm, with a thread count.
run_reader() {
    case $1 in
        fscanf) "$baseline" "$file" ;;
        libsp) "$spbench" --load-only "$file" --threads "$2" ;;
        fmm) fmm_read "$2" ;;
    esac
}

# The readers, "label|threads|kind"; a reader that cannot run gets its row now.
readers=()
if [ -x "$baseline" ]; then
    readers+=("fscanf (mmio style)|1|fscanf")
else
    note "fscanf (mmio style)" 1 "mtx_fscanf_baseline not built ($baseline)"
fi
for t in $threads; do
    if [ -x "$spbench" ]; then
        readers+=("libsp sp_mtx_read|$t|libsp")
    else
        note "libsp sp_mtx_read" "$t" "spbench not built"
    fi
done
if python3 -c "import fast_matrix_market" 2> /dev/null; then
    for t in $threads; do readers+=("fast_matrix_market|$t|fmm"); done
else
    note "fast_matrix_market" "" "not installed (pip install fast_matrix_market)"
fi

# Rounds: every reader once per round. Each run must print "nnz:" and "MB/s:" lines; a
# reader that fails once is not run again.
declare -a mbs nnz failed
for ((k = 0; k < repeats; k++)); do
    for i in "${!readers[@]}"; do
        [ -n "${failed[i]:-}" ] && continue
        IFS='|' read -r label t kind <<< "${readers[i]}"
        if ! out=$(run_reader "$kind" "$t" 2>&1); then
            failed[i]="failed: $(echo "$out" | tail -n 1)"
            continue
        fi
        nnz[i]=$(echo "$out" | field nnz)
        mbs[i]+="$(echo "$out" | field MB/s)"$'\n'
    done
done
for i in "${!readers[@]}"; do
    IFS='|' read -r label t kind <<< "${readers[i]}"
    m=$(printf '%s' "${mbs[i]:-}" | median)
    if [ -n "${failed[i]:-}" ]; then
        note "$label" "$t" "${failed[i]}"
    elif [ -z "$m" ] || [ -z "${nnz[i]:-}" ]; then
        note "$label" "$t" "failed: no nnz:/MB/s: lines in its output"
    else
        rows+=("$label|$t|${nnz[i]}|$(awk -v b="$bytes" -v m="$m" 'BEGIN { printf "%.6f", b / 1e6 / m }')")
    fi
done

base_s=""
for r in "${rows[@]}"; do
    IFS='|' read -r label t nnz s <<< "$r"
    [ "$label" = "fscanf (mmio style)" ] && [ "$nnz" != "-" ] && base_s=$s
done

echo "Loader benchmark: $file ($(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB), median of $repeats interleaved rounds, page cache warm"
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
