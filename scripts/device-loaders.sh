#!/usr/bin/env bash
# The loader measurements of a GPU host's CPUs (no GPU needed): the shape sweep at 1, 2
# and all cores against fast_matrix_market, the writer, the chunk size at 1 and all
# threads, and the two-core question (does a second core add 1.8x on this host: one
# process with two threads against two one-thread processes side by side, pinned to two
# distinct physical cores). Logs under $OUT (default /tmp/sp_loaders_out).
# usage: scripts/device-loaders.sh [SIZE_MB [shapes]]   ("shapes": the shape sweep alone)
#        (needs .whl with the fast_matrix_market and
#        numpy wheels for hosts without a network, see bench/loader_shapes.sh)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/sp_loaders_out}
size=${1:-1000}
b=$root/build-host
dir=/tmp/sp_shapes
mkdir -p "$out" "$dir"
cd "$root" || exit 1
t0=$(date +%s)
{ lscpu; python3 --version; uname -r; cat /sys/kernel/mm/transparent_hugepage/enabled; } \
    > "$out/host.txt" 2>&1
cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release -DSP_WITH_CUDA=OFF -DSP_BUILD_TESTS=OFF \
    -DSP_BUILD_EXAMPLES=OFF > "$out/build.log" 2>&1 &&
    cmake --build "$b" -j"$(nproc)" --target spbench gen_loader_inputs mtx_write_bench \
        mtx_fscanf_baseline >> "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
echo "== build ok ($(($(date +%s) - t0)) s)"
all=$(nproc)
export SP_FMM_WHEELS=$root/.whl
bash bench/loader_bench.sh --shapes --threads "1 2 $all" --size-mb "$size" --no-fscanf \
    --build "$b" --dir "$dir" --repeats 3 2>&1 | tee "$out/shapes.md"
echo "== shapes done ($(($(date +%s) - t0)) s)"
[ "${2:-}" = shapes ] && exit 0

mbs() { awk '$1 == "MB/s:" { print $2 }'; }
sp=$b/bench/spbench
echo "== chunk size (MB/s of libsp, 3 rounds each, real and integer shapes)" | tee "$out/chunks.txt"
for f in real integer; do
    for t in 1 "$all"; do
        for cb in 262144 1048576 4194304; do
            v=""
            for r in 1 2 3; do
                v+="$(SP_TEST_CHUNK_BYTES=$cb "$sp" --load-only "$dir/$f-$size.mtx" --threads "$t" | mbs) "
            done
            echo "$f threads=$t chunk=$cb MB/s: $v" | tee -a "$out/chunks.txt"
        done
    done
done

# two distinct physical cores
read -r ca cb < <(lscpu -p=CPU,CORE | grep -v '^#' | awk -F, '!seen[$2]++ { printf "%s ", $1 }' |
    awk '{ print $1, $2 }')
echo "== two cores: cpus $ca and $cb (distinct physical cores)" | tee "$out/pair.txt"
for f in real integer pattern; do
    file=$dir/$f-$size.mtx
    for r in 1 2 3; do
        one=$(taskset -c "$ca" "$sp" --load-only "$file" --threads 1 | mbs)
        two=$(taskset -c "$ca,$cb" "$sp" --load-only "$file" --threads 2 | mbs)
        taskset -c "$ca" "$sp" --load-only "$file" --threads 1 > /tmp/sp_pair_a &
        taskset -c "$cb" "$sp" --load-only "$file" --threads 1 > /tmp/sp_pair_b
        wait
        pa=$(mbs < /tmp/sp_pair_a)
        pb=$(mbs < /tmp/sp_pair_b)
        echo "$f round $r: 1 thread $one MB/s; 2 threads $two MB/s; two 1-thread processes side by side $pa + $pb MB/s" | tee -a "$out/pair.txt"
    done
done
echo "== pair done ($(($(date +%s) - t0)) s)"
bash bench/loader_bench.sh --writer --threads "1 2 $all" --size-mb "$size" --build "$b" \
    --dir "$dir" --repeats 3 2>&1 | tee "$out/writer.md"
# the fscanf baseline reads ~75 MB/s: its 1-thread comparison on smaller files
bash bench/loader_bench.sh --shapes --threads 1 --size-mb 300 --build "$b" \
    --dir /tmp/sp_shapes300 --repeats 3 2>&1 | tee "$out/fscanf300.md"
echo "== all done ($(($(date +%s) - t0)) s)"
