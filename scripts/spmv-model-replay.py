#!/usr/bin/env python3
"""The SpMV cost model (src/policy.c) against measured times (issue 23).

  scripts/spmv-model-replay.py join REPLAY.tsv MEASURED.json
  scripts/spmv-model-replay.py derive REPLAY.tsv MEASURED.json
  scripts/spmv-model-replay.py holdout REPLAY_BIN A.stats A.json B.stats B.json [--effs]

join: per input, the model's choice (bench/spmv_model_replay's TSV), the measured best row
of spbench's JSON (every row but AUTO's), the measured time of the model's choice over the
best, and the Spearman rank correlation of the model's times against the measured ones over
the candidates both have; then the count over 1.10, the largest ratio and their geomeans
(all inputs, and those of at least 1M entries apart).
derive: the efficiencies of the model's kinds from one set: for each kind, the least-squares
fit of  bytes / (read_gbs x (t - launches x launch_us)) = near x eff_near + (1 - near) x
eff_far  over the set's inputs of at least 1M entries (bytes: what the model priced the
candidate at; near: col_near), printed as --set arguments for spmv_model_replay.
holdout: derive the mechanism constants (launch_us, fence_us, l2_gbs: derive_mechanisms
says how) on A, replay B's statistics with them (spmv_model_replay --stats-in, --set) and
join with B; then the same the other way round (with --effs the efficiencies too). What
the issue asks of a model that is not fitted per input."""
import json
import math
import os
import subprocess
import sys

CANDS = ["csr/scalar", "csr/vector", "csr/merge", "csr/binned", "csr/adaptive", "ell", "sell",
         "jds", "coo/atomic"]
# the model's kind of each candidate (sp__spmv_kind_t) and its launches in a call without
# long rows (the derivation takes inputs of >= 1M entries, where the stream dominates)
KIND = {"csr/scalar": 0, "csr/vector": 1, "csr/binned": 2, "csr/adaptive": 3, "ell": 4,
        "sell": 5, "jds": 6, "coo/atomic": 7}
LAUNCHES = {"coo/atomic": 2}
LAUNCH_US = 3.25
TIE_US = 0.3
READ_GBS = 3071.0


def key(name):
    """The join key: a generator spec, or a file's base name."""
    return name.rsplit("/", 1)[-1]


def read_replay(path):
    rows = {}
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if len(cells) != len(head):
                continue
            r = dict(zip(head, cells))
            rows[key(r["input"])] = r
    return rows


def read_measured(path):
    with open(path) as f:
        d = json.load(f)
    out = {}
    for m in d.get("suite", [d]):
        times = {}
        for row in m.get("formats") or []:
            t = row.get("spmv_ms_median")
            if t and row.get("status") == "SP_STATUS_SUCCESS":
                times[row["label"]] = t * 1e3
                if row["label"].startswith("auto") and row.get("ran_alg"):
                    # what the AUTO row ran, as the rows name it (spbench's ran_alg)
                    m["_auto_ran"] = f"{row['ran_as']}/{ALG_NAMES.get(row['ran_alg'], '?')}"
        if times:
            out[key(m["input"])] = (m, times)
    return out


# sp_spmv_alg_t (include/sp.h) as spbench's row labels name the algorithms
ALG_NAMES = {1: "atomic", 2: "segmented", 3: "scalar", 4: "vector", 5: "merge", 6: "split",
             7: "binned", 8: "adaptive"}


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den if den else float("nan")


def geomean(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def join(replay, measured, title):
    print(f"== {title}")
    print(f"{'input':34s} {'nnz':>10s} {'model choice':14s} {'us':>8s} {'best':14s} {'us':>8s}"
          f" {'ratio':>6s} {'auto(meas)':>16s} {'rho':>5s}")
    ratios, large, rhos, over, misses = [], [], [], [], []
    for k, r in replay.items():
        if k not in measured:
            continue
        m, times = measured[k]
        best = min((t, lab) for lab, t in times.items() if not lab.startswith("auto"))
        choice = r["choice"]
        t_choice = times.get(choice)
        auto = [(lab, t) for lab, t in times.items() if lab.startswith("auto")]
        pred, meas = [], []
        for c in CANDS:
            p = float(r[c])
            if p >= 0 and c in times:
                pred.append(p)
                meas.append(times[c])
        rho = spearman(pred, meas)
        ratio = t_choice / best[0] if t_choice else float("nan")
        if t_choice:
            ratios.append(ratio)
            if int(r["nnz"]) >= 1000000:
                large.append(ratio)
            if ratio > 1.10:
                # rows within TIE_US of each other at the launch floor are ties (run-to-run
                # noise of the smallest inputs)
                tie = t_choice - best[0] <= TIE_US
                over.append(f"{k}({ratio:.2f}{', tie' if tie else ''})")
                if not tie:
                    misses.append(k)
        if rho == rho:
            rhos.append(rho)
        a = f"{m.get('_auto_ran', auto[0][0][6:])} {auto[0][1]:.1f}" if auto else "-"
        print(f"{k[:34]:34s} {int(r['nnz']):10d} {choice:14s} {t_choice or -1:8.1f} "
              f"{best[1]:14s} {best[0]:8.1f} {ratio:6.3f} {a:>16s} {rho:5.2f}")
    print(f"{title}: inputs {len(ratios)}, over 1.10: {len(over)} ({len(misses)} beyond a "
          f"{TIE_US} us tie) {' '.join(over)}")
    print(f"{title}: max ratio {max(ratios):.3f}, geomean ratio {geomean(ratios):.4f} (>= 1M "
          f"entries {geomean(large):.4f} over {len(large)}), mean rank correlation "
          f"{sum(rhos) / len(rhos):.3f}")
    return ratios


def derive(replay, measured):
    """Least squares per kind: y = near * en + (1 - near) * ef."""
    out = {}
    for c, kind in KIND.items():
        s11 = s12 = s22 = b1 = b2 = 0.0
        n = 0
        for k, r in replay.items():
            if k not in measured or int(r["nnz"]) < 1000000:
                continue
            # rows past the tails' bound: the model prices walks, pieces and tails there,
            # not the stream this fit is about
            if float(r["row_max"]) > 4 * float(r["row_mean"]) + 32:
                continue
            _, times = measured[k]
            byts = float(r.get("bytes:" + c, -1))
            if c not in times or byts <= 0:
                continue
            t = times[c] - LAUNCHES.get(c, 1) * LAUNCH_US
            if t <= 0:
                continue
            y = byts / (READ_GBS * 1e3 * t)
            a = float(r["col_near"])
            a = min(max(a, 0.0), 1.0)
            s11 += a * a
            s12 += a * (1 - a)
            s22 += (1 - a) * (1 - a)
            b1 += a * y
            b2 += (1 - a) * y
            n += 1
        det = s11 * s22 - s12 * s12
        if n >= 2 and abs(det) > 1e-9:
            en = (b1 * s22 - b2 * s12) / det
            ef = (s11 * b2 - s12 * b1) / det
            out[kind] = (min(max(en, 0.05), 1.0), min(max(ef, 0.05), 1.0), n)
    return out


def median(v):
    v = sorted(v)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2.0 if v else float("nan")


def derive_mechanisms(replay, measured, step_us=0.45):
    """launch_us, fence_us and l2_gbs from one set (src/policy.c says what each is):
    launch_us: half the call of the two-launch rows (csr/merge, coo/atomic) on inputs of at
    most 1000 entries (the launch with its first step, nothing to stream);
    fence_us: CSR adaptive on inputs of < 200k entries whose longest row spans several
    pieces of 512 (longer than 512): its time less a launch and the piece's 3 steps beyond
    the launch's first;
    l2_gbs: CSR binned on inputs of 300k..20M entries whose CSR bytes fit in the 50 MB L2
    and whose rows are regular: its bytes over (time less a launch) x its efficiency."""
    launches, fences, l2 = [], [], []
    eff_near, eff_far = 0.83, 0.267  # binned's (src/policy.c)
    for k, r in replay.items():
        if k not in measured:
            continue
        _, t = measured[k]
        nnz, longest, mean = int(r["nnz"]), float(r["row_max"]), float(r["row_mean"])
        if nnz <= 1000:
            launches += [t[c] / 2.0 for c in ("csr/merge", "coo/atomic") if c in t]
        if nnz < 200000 and longest > 512 and "csr/adaptive" in t:
            fences.append(("fence", t["csr/adaptive"], k))
        byts = float(r.get("bytes:csr/binned", -1))
        if (300000 <= nnz <= 20000000 and 0 < byts <= 50 * 2**20 and
                longest <= 4 * mean + 32 and "csr/binned" in t):
            near = min(max(float(r["col_near"]), 0.0), 1.0)
            l2.append((byts, t["csr/binned"], near * eff_near + (1 - near) * eff_far))
    out = {}
    if launches:
        out["launch_us"] = median(launches)
    lu = out.get("launch_us", LAUNCH_US)
    if fences:
        out["fence_us"] = sum(t - lu - 3 * step_us for _, t, _ in fences) / len(fences)
    if l2:
        out["l2_gbs"] = median([b / ((t - lu) * 1e3 * e) for b, t, e in l2 if t > lu])
    return out


def set_args(effs):
    args = []
    for kind, (en, ef, _) in sorted(effs.items()):
        args += ["--set", f"eff_near.{kind}={en:.3f}", "--set", f"eff_far.{kind}={ef:.3f}"]
    return args


def main(argv):
    if len(argv) >= 4 and argv[1] == "join":
        join(read_replay(argv[2]), read_measured(argv[3]), os.path.basename(argv[3]))
        return 0
    if len(argv) >= 4 and argv[1] == "derive":
        effs = derive(read_replay(argv[2]), read_measured(argv[3]))
        for c, kind in KIND.items():
            if kind in effs:
                en, ef, n = effs[kind]
                print(f"{c:14s} eff_near {en:.3f} eff_far {ef:.3f} over {n} inputs")
        print(" ".join(set_args(effs)))
        return 0
    with_effs = "--effs" in argv
    argv = [a for a in argv if a != "--effs"]
    if len(argv) >= 7 and argv[1] == "holdout":
        binary, sets = argv[2], [(argv[3], argv[4]), (argv[5], argv[6])]
        for train, test in ((0, 1), (1, 0)):
            stats_tr, json_tr = sets[train]
            stats_te, json_te = sets[test]
            tr = subprocess.run([binary, "--stats-in", stats_tr], capture_output=True,
                                text=True, check=True).stdout
            tmp = f"/tmp/spmv-model-replay-{os.getpid()}.tsv"
            with open(tmp, "w") as f:
                f.write(tr)
            mech = derive_mechanisms(read_replay(tmp), read_measured(json_tr))
            args = [a for n, v in sorted(mech.items()) for a in ("--set", f"{n}={v:.4g}")]
            if with_effs:
                args += set_args(derive(read_replay(tmp), read_measured(json_tr)))
            print(f"== derived on {os.path.basename(json_tr)}: {' '.join(args)}")
            te = subprocess.run([binary, "--stats-in", stats_te] + args,
                                capture_output=True, text=True, check=True).stdout
            with open(tmp, "w") as f:
                f.write(te)
            join(read_replay(tmp), read_measured(json_te),
                 f"{os.path.basename(json_te)} with constants of {os.path.basename(json_tr)}")
            os.unlink(tmp)
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
