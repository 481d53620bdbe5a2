#!/usr/bin/env python3
"""Compare two runs of scripts/device-suites.sh (before and after a change): the SpMV
suite's summary (auto and best speedups over cuSPARSE CSR, measured in each run) and every
row of the BFS suite (GTEPS, Graph500-counted). Prints Markdown tables with after/before
ratios, so "the same figures within noise" is read off one page.
  usage: compare-suites.py BEFORE_DIR AFTER_DIR   (each holding suite.log, bfs-suite.log)"""
import math
import re
import sys


def suite_rows(path):
    rows, on = {}, False
    for line in open(path, errors="replace"):
        if line.startswith("matrix ") and "auto_x" in line:
            on = True
            continue
        if on:
            f = line.split()
            if len(f) < 7 or not re.match(r"^[0-9.]+$", f[3]):
                on = False
                continue
            rows[f[0]] = (int(f[1]), f[2], float(f[3]), f[4], float(f[5]))
    return rows


def auto_ms(path):
    """libsp's own median time of the AUTO row of each input (ms), from the suite log."""
    out, name = {}, None
    for line in open(path, errors="replace"):
        if line.startswith("input: "):
            name = line.split()[1].split("/")[-1]
        m = re.match(r"^format: auto->\S+.*?spmv_ms: ([0-9.]+)", line)
        if m and name:
            out[name] = float(m.group(1))
    return out


def bfs_rows(path):
    rows = {}
    for line in open(path, errors="replace"):
        f = line.split()
        # graph variant loop src ms_mean ms_hmean GTEPS_g5 g5_multi g5_kern GTEPS_dir
        # levels us/level switch valid (12 fields before the multi and kernel columns)
        if len(f) in (12, 14) and f[-1] in ("yes", "no") and re.match(r"^[0-9.]+$", f[6]):
            rows[(f[0], f[1], f[2])] = (float(f[6]), float(f[5]))
    return rows


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(before, after):
    sb, sa = suite_rows(before + "/suite.log"), suite_rows(after + "/suite.log")
    mb, ma = auto_ms(before + "/suite.log"), auto_ms(after + "/suite.log")
    print("| matrix | nnz | auto before | auto_x before | auto after | auto_x after | after/before "
          "| libsp AUTO ms before | after | libsp speed after/before |")
    print("|---|---:|---|---:|---|---:|---:|---:|---:|---:|")
    speeds = []
    ratios = []
    for m in sb:
        if m not in sa:
            print(f"| {m} | {sb[m][0]} | {sb[m][1]} | {sb[m][2]:.3f} | (missing) | | |")
            continue
        r = sa[m][2] / sb[m][2]
        ratios.append(r)
        tb, ta = mb.get(m), ma.get(m)
        sp = tb / ta if tb and ta else None
        if sp:
            speeds.append(sp)
        extra = f"| {tb:.4f} | {ta:.4f} | {sp:.3f} |" if sp else "| | | |"
        print(f"| {m} | {sb[m][0]} | {sb[m][1]} | {sb[m][2]:.3f} | {sa[m][1]} | {sa[m][2]:.3f} "
              f"| {r:.3f} " + extra)
    print(f"\nSpMV auto_x after/before: geomean {geomean(ratios):.3f}, "
          f"min {min(ratios, default=float('nan')):.3f}, max {max(ratios, default=float('nan')):.3f} "
          f"over {len(ratios)} matrices; libsp's own AUTO time, speed after/before: geomean "
          f"{geomean(speeds):.3f}, min {min(speeds, default=float('nan')):.3f}, "
          f"max {max(speeds, default=float('nan')):.3f}\n")
    bb, ba = bfs_rows(before + "/bfs-suite.log"), bfs_rows(after + "/bfs-suite.log")
    print("| graph | variant | loop | GTEPS before | GTEPS after | ms (hmean) before | after "
          "| speed after/before |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    ratios = []
    for k in bb:
        if k not in ba:
            print(f"| {k[0]} | {k[1]} | {k[2]} | {bb[k][0]:.3f} | (missing) | | | |")
            continue
        r = bb[k][1] / ba[k][1] if ba[k][1] > 0 else float("nan")
        if ba[k][1] > 0:
            ratios.append(r)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {bb[k][0]:.3f} | {ba[k][0]:.3f} | {bb[k][1]:.4f} "
              f"| {ba[k][1]:.4f} | {r:.3f} |")
    print(f"\nBFS speed after/before (ms hmean before / after): geomean {geomean(ratios):.3f}, "
          f"min {min(ratios, default=float('nan')):.3f}, max {max(ratios, default=float('nan')):.3f} "
          f"over {len(ratios)} rows")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
