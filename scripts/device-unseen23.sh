#!/usr/bin/env bash
# Issue 23's AUTO on shapes outside both benchmark sets (no constant was derived on them),
# on a 1-GPU H100 in about 4 minutes: spbench (every format and CSR algorithm, cuSPARSE
# CSR_ALG1 in the same run) on a power-law matrix of exponent 2.5, a band of half-width
# 200, 3x3 blocks with 27 block columns a row, a short wide matrix (2000 rows of 2000
# entries over 4M columns), a tall thin one (4M rows of 3 over 20000 columns) and a circuit
# matrix; then Kronecker 23's BFS with the direction rule and with Beamer's. Prints per
# input AUTO's row, the best row and their ratio. Logs in build-gpu/logs-unseen, tarred
# into $OUT as unseen-logs.tgz.
#   [UNSEEN_BFS=0] bash scripts/device-unseen23.sh
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build-gpu/logs-unseen
mkdir -p "$logs"
. scripts/device-env.sh
. scripts/device-steps.sh
build_gpu 300 spbench || exit 1
SB=./build-gpu/bench/spbench
i=0
for g in powerlaw:1000000:2.5:12 banded:1000000:200 blocks:300000:3:27 \
         rect:2000:4000000:2000 rect:4000000:20000:3 circuit:2000000:8; do
  i=$((i + 1))
  step "spmv$i" 100 $SB --gen "$g" --reps 5 --json "$logs/spmv$i.json"
done
python3 - "$logs"/spmv*.json <<'PY' | tee "$logs/auto.txt"
import json, sys
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
    except Exception as e:
        print(p, "unreadable", e); continue
    m = d["suite"][0] if "suite" in d else d
    rows = [r for r in m.get("formats", []) if r.get("spmv_ms_median")]
    a = [r for r in rows if r["label"].startswith("auto")]
    b = min((r for r in rows if not r["label"].startswith("auto")), key=lambda r: r["spmv_ms_median"])
    if not a:
        print(m["input"], "no AUTO row"); continue
    a = a[0]
    print("%-26s nnz %10d  AUTO %-10s alg %d %8.1f us (%.3fx cuSPARSE)  best %-13s %8.1f us  AUTO/best %.3f" % (
        m["input"], m.get("nnz_merged", m["nnz"]), a["ran_as"], a.get("ran_alg", -1),
        1e3 * a["spmv_ms_median"], a.get("speedup_cusparse_csr") or 0, b["label"],
        1e3 * b["spmv_ms_median"], a["spmv_ms_median"] / b["spmv_ms_median"]))
PY
# UNSEEN_BFS=0: the SpMV shapes alone
for rule in $([ "${UNSEEN_BFS:-1}" = 0 ] || echo new beamer); do
  flag=()
  [ $rule = beamer ] && flag=(--bfs-beamer-rule)
  step "kron23-$rule" 120 $SB --gen kron:23 --bfs --sources 16 --bfs-validate 2 \
    --bfs-variant auto "${flag[@]}"
  grep -E "^kron" "$logs/kron23-$rule.log" | sed "s/^/   $rule: /"
done
[ -n "${OUT:-}" ] && tar -C "$logs" -czf "$OUT/unseen-logs.tgz" .
[ $status = 0 ] && echo "device-unseen23: PASSED" || echo "device-unseen23: FAILED"
exit $status
