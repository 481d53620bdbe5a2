#!/usr/bin/env python3
"""The SpMV cost model's constants (src/policy.c, spmv_format_sm90) from spbench JSON.

  scripts/spmv-model-constants.py SUITE.json [WIDE.json ...] [--walk WALK.json]

eff_near: each kernel's GB/s (CSR byte model) over the run's read bandwidth, mean over the
inputs of >= 1M entries whose gathers stay near the diagonal (poisson*, banded*, blocks*);
eff_far: the same over those spread over x (kron*, uniform*, randcol*, powerlaw*, rect*
wide). step_us: from WALK.json, a run with --long-row-bound -1 --formats sell,jds on an
input with one long row: the call's time over the longest row / 4 (one batch of 4
dependent slots a step). Prints the values and the C initialisers to paste."""
import json
import sys

KERNELS = ["csr/scalar", "csr/vector", "csr/binned", "csr/adaptive", "ell", "sell", "jds",
           "coo/atomic"]
NEAR = ("poisson", "banded", "blocks")
FAR = ("kron", "uniform", "randcol", "powerlaw", "rect:250000")


def inputs(paths):
    for p in paths:
        try:
            with open(p) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print(f"skipped {p}: {e}")
            continue
        for m in d["suite"] if "suite" in d else [d]:  # a suite, or one input's report
            yield m


def main(argv):
    walk = None
    if "--walk" in argv:
        i = argv.index("--walk")
        walk = argv[i + 1]
        del argv[i:i + 2]
    sums = {"near": {k: [] for k in KERNELS}, "far": {k: [] for k in KERNELS}}
    for m in inputs(argv[1:]):
        name = m["input"].rsplit("/", 1)[-1]
        if m.get("nnz", 0) < 1000000 or not m.get("read_bandwidth_gbs"):
            continue
        cls = "near" if name.startswith(NEAR) else "far" if name.startswith(FAR) else None
        if cls is None:
            continue
        for row in m.get("formats", []):
            if row.get("label") in KERNELS and row.get("gbs"):
                sums[cls][row["label"]].append(row["gbs"] / m["read_bandwidth_gbs"])
    for cls in ("near", "far"):
        vals = []
        for k in KERNELS:
            v = sums[cls][k]
            mean = sum(v) / len(v) if v else float("nan")
            vals.append(mean)
            print(f"eff_{cls} {k:14s} {mean:.3f} over {len(v)} inputs")
        print(f"    .eff_{cls} = {{" + ", ".join(f"{v:.3f}" for v in vals) + "},")
    if walk:
        for m in inputs([walk]):
            longest = m.get("row_length", {}).get("max", 0)
            for row in m.get("formats", []):
                if row.get("label") in ("sell", "jds") and row.get("spmv_ms_median") and longest:
                    step = row["spmv_ms_median"] * 1e3 / (longest / 4.0)
                    print(f"step_us {m['input']} {row['label']}: {step:.3f} "
                          f"(longest row {longest})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
