#!/usr/bin/env bash
# Loader and writer benchmark over number shapes (run through bench/loader_bench.sh --shapes
# or --writer). Generates one file per shape with gen_loader_inputs (real: 17-digit values,
# magnitudes 1e-5..1e4; integer; pattern; all with 8-digit ids; snap: the pattern file's
# edges as a SNAP edge list), then runs interleaved rounds of every reader at every thread
# count: libsp (spbench --load-only), fast_matrix_market (fmm.read_coo, parallelism=T; for
# snap, the same edges as the pattern .mtx) and the fscanf baseline (mtx only, 1 thread).
# Prints a markdown table of medians: MB/s of the file read, ratios vs fmm and vs fscanf at
# the same thread count, and the peak RSS against the issue's target (1.25 x the output COO
# + 64 MiB; COO = nnz x (4 + 4 + 8), doubles). Page cache warm (each file read once first).
# --writer: sp_mtx_write (mtx_write_bench: temporary file, fsync, rename) against
# fmm.write_coo of the same matrix (the real shape), interleaved, at each thread count.
#
# usage: bench/loader_bench.sh --shapes|--writer [--threads "1 2 16"] [--size-mb 300]
#            [--repeats 3] [--dir DIR] [--build BUILD_DIR] [--no-fscanf]
#   --no-fscanf: leave the fscanf baseline out (it reads ~30 MB/s: on a GPU host's short
#   lease its rows are measured on the developer machine instead)
#   fast_matrix_market is installed with pip when missing: from the wheels in
#   $SP_FMM_WHEELS (pip install --no-index --find-links, for hosts without a network),
#   else from PyPI.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=$1
shift
build=${SP_BUILD:-$root/build}
threads="1 $(nproc)"
size=300
repeats=3
dir=${TMPDIR:-/tmp}/sp_loader_shapes
no_fscanf=0
while [ $# -gt 0 ]; do
    case $1 in
        --threads) threads=$2; shift 2 ;;
        --size-mb) size=$2; shift 2 ;;
        --repeats) repeats=$2; shift 2 ;;
        --dir) dir=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --no-fscanf) no_fscanf=1; shift ;;
        *) sed -n '14,20p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
    esac
done
spbench=$build/bench/spbench
baseline=$build/bench/mtx_fscanf_baseline
gen=$build/bench/gen_loader_inputs
wbench=$build/bench/mtx_write_bench
for b in "$spbench" "$gen"; do
    [ -x "$b" ] || { echo "loader_bench.sh: $b not built" >&2; exit 1; }
done

if ! python3 -c "import fast_matrix_market, numpy" 2> /dev/null; then
    if [ -n "${SP_FMM_WHEELS:-}" ]; then
        python3 -m pip install -q --no-index --find-links "$SP_FMM_WHEELS" fast_matrix_market >&2
    else
        python3 -m pip install -q fast_matrix_market numpy >&2
    fi
fi
have_fmm=0
python3 -c "import fast_matrix_market" 2> /dev/null && have_fmm=1

mkdir -p "$dir"
file_of() { [ "$1" = snap ] && echo "$dir/snap-$size.txt" || echo "$dir/$1-$size.mtx"; }
shapes=${SP_SHAPES:-real integer pattern snap} # e.g. SP_SHAPES="pattern snap" (snap needs pattern)
for s in $shapes; do
    f=$(file_of "$s")
    [ -s "$f" ] || "$gen" "$s" "$f" "$size" > /dev/null || exit 1
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { awk -v key="$1:" '{ for (i = 1; i < NF; i++) if ($i == key) { print $(i + 1); exit } }'; }

# fast_matrix_market in a fresh process: one untimed tiny read, then the timed call.
fmm_read() { python3 "$root/bench/fmm_read.py" "$1" "$2"; }
fmm_write() {
    python3 - "$1" "$2" "$3" <<'PY'
import os, sys, time
import fast_matrix_market as fmm
src, out, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
(data, (i, j)), shape = fmm.read_coo(src, parallelism=threads)
t0 = time.perf_counter()
fmm.write_coo(out, (data, (i, j)), shape=shape, parallelism=threads)
s = time.perf_counter() - t0
fd = os.open(out, os.O_RDONLY)
os.fsync(fd)
os.close(fd)
s_sync = time.perf_counter() - t0
print(f"MB/s: {os.path.getsize(out) / 1e6 / s:.6f}")
print(f"MB/s_fsync: {os.path.getsize(out) / 1e6 / s_sync:.6f}")
PY
}
fscanf_read() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "peak_kb: %M" "$baseline" "$1" 2>&1
    else
        "$baseline" "$1"
    fi
}

host="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2> /dev/null | sed 's/.*: //')"

if [ "$mode" = --writer ]; then
    src=$(file_of real)
    cat "$src" > /dev/null
    declare -A w
    for ((k = 0; k < repeats; k++)); do
        for t in $threads; do
            out=$("$wbench" "$src" "$dir/w-sp.mtx" "$t" 2>&1) && w[sp$t]+="$(echo "$out" | field MB/s) "
            if [ $have_fmm = 1 ]; then
                out=$(fmm_write "$src" "$dir/w-fmm.mtx" "$t" 2>&1) &&
                    w[fmm$t]+="$(echo "$out" | field MB/s) " &&
                    w[fmms$t]+="$(echo "$out" | field MB/s_fsync) "
            fi
        done
    done
    rm -f "$dir/w-sp.mtx" "$dir/w-fmm.mtx"
    echo "Writer benchmark: $src ($(stat -c %s "$src" | awk '{ printf "%.0f", $1 / 1e6 }') MB of real values), median of $repeats interleaved rounds; host: $host"
    echo
    echo "| threads | libsp sp_mtx_write (with fsync) MB/s | fmm write_coo MB/s (no fsync) | fmm + fsync MB/s | libsp / fmm | libsp / (fmm + fsync) |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for t in $threads; do
        a=$(echo ${w[sp$t]:-} | tr ' ' '\n' | median)
        b=$(echo ${w[fmm$t]:-} | tr ' ' '\n' | median)
        c=$(echo ${w[fmms$t]:-} | tr ' ' '\n' | median)
        awk -v t="$t" -v a="$a" -v b="$b" -v c="$c" 'BEGIN {
            printf "| %s | %s | %s | %s | %s | %s |\n", t, a == "" ? "-" : sprintf("%.1f", a),
                b == "" ? "-" : sprintf("%.1f", b), c == "" ? "-" : sprintf("%.1f", c),
                (a == "" || b == "") ? "-" : sprintf("%.2fx", a / b),
                (a == "" || c == "") ? "-" : sprintf("%.2fx", a / c) }'
    done
    exit 0
fi

declare -A mbs rss nnz
for s in $shapes; do cat "$(file_of "$s")" > /dev/null; done
for ((k = 0; k < repeats; k++)); do
    for s in $shapes; do
        f=$(file_of "$s")
        fm=$f
        [ "$s" = snap ] && fm=$(file_of pattern)
        if [ "$s" != snap ] && [ -x "$baseline" ] && [ $no_fscanf = 0 ]; then
            if out=$(fscanf_read "$f"); then
                mbs[$s,fscanf,1]+="$(echo "$out" | field MB/s) "
                kb=$(echo "$out" | field peak_kb)
                [ -n "$kb" ] && rss[$s,fscanf,1]=$((kb * 1024))
            fi
        fi
        for t in $threads; do
            fmt=()
            [ "$s" = snap ] && fmt=(--format snap)
            if out=$("$spbench" --load-only "$f" "${fmt[@]}" --threads "$t" 2>&1); then
                mbs[$s,libsp,$t]+="$(echo "$out" | field MB/s) "
                rss[$s,libsp,$t]=$(echo "$out" | field peak_rss_bytes)
                nnz[$s]=$(echo "$out" | field nnz)
            fi
            if [ $have_fmm = 1 ] && out=$(fmm_read "$fm" "$t" 2>&1); then
                mbs[$s,fmm,$t]+="$(echo "$out" | field MB/s) "
                rss[$s,fmm,$t]=$(echo "$out" | field peak_rss_bytes)
            fi
        done
    done
done

echo "Loader shapes: files of about $size MB in $dir, median of $repeats interleaved rounds, page cache warm; host: $host"
[ $have_fmm = 1 ] || echo "fast_matrix_market: not installed (set SP_FMM_WHEELS or allow pip)"
echo
echo "| shape | reader | threads | MB/s | vs fmm | vs fscanf | peak RSS MB | target MB (1.25 COO + 64 MiB) | RSS target |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for s in $shapes; do
    f=$(file_of "$s")
    bytes=$(stat -c %s "$f")
    coo=$(( ${nnz[$s]:-0} * 16 ))
    base=$(echo ${mbs[$s,fscanf,1]:-} | tr ' ' '\n' | median)
    for reader in fscanf libsp fmm; do
        for t in $threads; do
            [ "$reader" = fscanf ] && [ "$t" != "$(echo $threads | cut -d' ' -f1)" ] && continue
            key=$s,$reader,$t
            [ "$reader" = fscanf ] && key=$s,fscanf,1
            m=$(echo ${mbs[$key]:-} | tr ' ' '\n' | median)
            [ -z "$m" ] && continue
            fm=$(echo ${mbs[$s,fmm,$t]:-} | tr ' ' '\n' | median)
            label=$reader
            [ "$s" = snap ] && [ "$reader" = fmm ] && label="fmm (same edges as .mtx)"
            [ "$s" = snap ] && [ "$reader" = libsp ] && label="libsp (SNAP reader)"
            [ "$reader" = fscanf ] && t=1
            awk -v s="$s" -v l="$label" -v t="$t" -v m="$m" -v fm="$fm" -v base="$base" \
                -v rss="${rss[$key]:-}" -v coo="$coo" 'BEGIN {
                target = 1.25 * coo + 64 * 1048576
                printf "| %s | %s | %s | %.1f | %s | %s | %s | %.0f | %s |\n", s, l, t, m,
                    fm == "" ? "-" : sprintf("%.2fx", m / fm),
                    base == "" ? "-" : sprintf("%.2fx", m / base),
                    rss == "" ? "-" : sprintf("%.0f", rss / 1e6), target / 1e6,
                    rss == "" ? "-" : (rss <= target ? "met" : sprintf("%.2fx of it", rss / target)) }'
        done
    done
done
