#!/usr/bin/env python3
"""What ANY nightly gate can reach on real nights: an upper bound on the power to see a slowdown.

The nightly gate compares tonight's run with K prior nights. Each kernel's night-to-night
spread must be learned from those K nights (K-1 degrees of freedom), and on the H200 GEMM
tier the kernels' spreads differ ~20-fold. This script measures, on real nights:

1. Per kernel: location per night = median of log(seconds_per_iteration); the night's shared
   factor (median across kernels of each kernel's deviation from its across-night median)
   is removed; the residual's night-to-night sd (and 1.4826 MAD), the within-run robust CV,
   repetitions, shape (kurtosis against normal samples of the same size, robust z of jumps),
   and whether the within-run spread predicts the night-to-night spread (Spearman).
2. The power of tests that know more than any gate can, each calibrated by simulation to
   <= --alpha probability that an unchanged night FAILs anything:
   - known sigma: each kernel's sd known exactly (mean still from the K nights);
     "z" = equal alpha per kernel (max z), "LR" = one threshold on each kernel's likelihood
     ratio (the alpha spread across kernels so as to maximise the slowed kernels flagged);
   - G-prior LR: the population G of the suite's sds is known, not which kernel has which;
     each kernel's LR of "+slowdown tonight" vs "none" is marginalised over sigma ~ G given
     the K nights (sum of squares about their mean, K-1 df; tonight's deviation from their
     mean has variance sigma^2 (1 + 1/K)). Neyman-Pearson: most powerful per kernel;
   - EB LR, no oracle: the same LR with G a log-normal fitted by moments to the K nights'
     sums of squares of the suite's kernels (what a gate could do tonight, a floor on the room);
   - EB NP night: the night's LR below with the EB LRs (no oracle G);
   - NP night bound: the night's LR of "M random kernels slowed" vs "none" = the mean over
     M-subsets of the product of per-kernel LRs = e_M(LR) / C(n, M) (elementary symmetric
     polynomial). No test of "this night has M slowed kernels" at this false-alarm rate
     can flag more nights, given only K nights of the suite and G.
   Noise models: "normal" (each kernel its measured sd, normal), "resample" (K+1 distinct
   real nights drawn without replacement, the residuals' real shape and cross-kernel
   dependence), "smooth" (sds drawn from a kernel-density smoothing of G; the tests know the
   smoothed G). The shared factor is taken as removed exactly (in the bound's favour).

usage: real-night-bound.py NIGHT.json ... [--nights 3 5 8 10 inf] [--draws N] [--seed S]
       [--session2 NIGHT.json ...] [--divide FILE=FACTOR:KERNEL,KERNEL ...]
"""
import argparse
import bisect
import json
import math
import os
import random
import statistics as st
from multiprocessing import Pool

NEG = -math.inf


def load(path, divide):
    """{kernel: [log seconds per iteration]}; an injected slowdown divided out if asked."""
    factor, kernels = divide.get(os.path.basename(path), (1.0, ()))
    out = {}
    for r in json.load(open(path))["results"]:
        if r.get("status") != "ok":
            continue
        k = r["name"].split("/")[-1]
        shift = math.log(factor) if k in kernels else 0.0
        out[k] = [math.log(x) - shift for x in r["samples"]["seconds_per_iteration"]]
    return out


def residuals(nights):
    """Per-kernel night residuals with the per-night shared factor removed (robustly)."""
    ks = sorted(set.intersection(*(set(n) for n in nights)))
    loc = {k: [st.median(n[k]) for n in nights] for k in ks}
    centre = {k: st.median(loc[k]) for k in ks}
    shared = [st.median(loc[k][j] - centre[k] for k in ks) for j in range(len(nights))]
    return ks, {k: [loc[k][j] - centre[k] - shared[j] for j in range(len(nights))] for k in ks}, shared


def mad_sd(v):
    m = st.median(v)
    return 1.4826 * st.median(abs(x - m) for x in v)


def kurt(v):
    m = st.fmean(v)
    m2 = st.fmean((x - m) ** 2 for x in v)
    return st.fmean((x - m) ** 4 for x in v) / m2 ** 2 - 3


def ranks(v):
    order = sorted(range(len(v)), key=v.__getitem__)
    r = [0.0] * len(v)
    for p, i in enumerate(order):
        r[i] = p
    return r


def spearman(x, y, rng, perms=20000):
    """Spearman rho and its two-sided permutation p-value."""
    rx, ry = ranks(x), ranks(y)
    rho = st.correlation(rx, ry)
    hits = sum(abs(st.correlation(rx, rng.sample(ry, len(ry)))) >= abs(rho) - 1e-12 for _ in range(perms))
    return rho, (hits + 1) / (perms + 1)


def log_esp(ls, m):
    """log e_m(exp(l_1), ..., exp(l_n)): the elementary symmetric polynomial, in logs."""
    e = [0.0] + [NEG] * m
    for l in ls:
        for j in range(m, 0, -1):
            x, y = e[j - 1] + l, e[j]
            if x == NEG:
                continue
            e[j] = x + math.log1p(math.exp(y - x)) if x >= y else y + math.log1p(math.exp(x - y))
    return e[m]


def digamma(x):
    r = 0.0
    while x < 6:
        r, x = r - 1 / x, x + 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f / 252))


def trigamma(x):
    r = 0.0
    while x < 6:
        r, x = r + 1 / (x * x), x + 1
    f = 1 / (x * x)
    return r + 1 / x + f / 2 + f / x * (1 / 6 - f * (1 / 30 - f / 42))


def logF(ab, q):
    """log sum_g w_g sigma_g^-K exp(-q / (2 sigma_g^2)), ab = [(log w_g - K log sigma_g, 1 / (2 sigma_g^2))]."""
    e = [a - q * b for a, b in ab]
    mx = max(e)
    return mx + math.log(sum(math.exp(x - mx) for x in e))


def eb_grid(Ss, K, points=25):
    """Log-normal G fitted to the suite's sums of squares S = sigma^2 chi2_{K-1}: log S has mean
    log sigma^2 + psi((K-1)/2) + log 2 and variance tau^2 + psi'((K-1)/2)."""
    ls = [math.log(max(S, 1e-30)) for S in Ss]
    mu = st.fmean(ls) - digamma((K - 1) / 2) - math.log(2)
    tau = math.sqrt(max(st.variance(ls) - trigamma((K - 1) / 2), 0.01))
    xs = [mu + tau * (-3 + 6 * g / (points - 1)) for g in range(points)]
    w = [math.exp(-0.5 * ((x - mu) / tau) ** 2) for x in xs]
    return [(math.log(wi / sum(w)) - K * x / 2, 0.5 * math.exp(-x)) for x, wi in zip(xs, w)]


def simulate(task):
    """One (noise model, K): calibrate six tests on null nights, measure them on fresh ones."""
    model, K, sds, res, grid, draws, seed, delta, m, alpha = task
    rng = random.Random(f"{seed}-{model}-{K}")
    n, J = len(sds), (len(res[0]) if res else 0)
    inf = math.isinf(K)
    c2 = 1.0 if inf else 1 + 1 / K
    # G-prior marginal: log F(Q) = log sum_g w_g sigma_g^-K exp(-Q / (2 sigma_g^2)), with
    # Q = S + d^2 / c2 (S: sum of squares of the K nights about their mean, d: tonight - mean).
    ab = [] if inf else [(math.log(w) - K * math.log(s), 0.5 / (s * s)) for s, w in grid]
    log_sd_smooth = [math.log(s) for s in sds]
    h = grid_h(sds) if model == "smooth" else 0.0
    big4 = sorted(range(n), key=lambda i: -sds[i])[:m]

    def night():
        """(sigma, S, d) per kernel for one unchanged night under the noise model."""
        if model == "resample":
            idx = rng.sample(range(J), K + 1)
            out = []
            for i in range(n):
                xs = [res[i][j] for j in idx[:K]]
                mu = st.fmean(xs)
                out.append((sds[i], sum((x - mu) ** 2 for x in xs), res[i][idx[K]] - mu))
            return out
        sig = sds if model == "normal" else [math.exp(rng.choice(log_sd_smooth) + h * rng.gauss(0, 1)) for _ in range(n)]
        return [(s, 0.0 if inf else s * s * rng.gammavariate((K - 1) / 2, 2.0), s * math.sqrt(c2) * rng.gauss(0, 1))
                for s in sig]

    def stats(s, S, d, eb):
        """Per-kernel statistics: known-sigma z, known-sigma log LR, G-prior log LR, EB log LR."""
        v = s * s * c2
        klr = (delta * d - delta * delta / 2) / v
        if inf:
            return d / math.sqrt(v), klr, klr, klr
        q1, q0 = S + (d - delta) ** 2 / c2, S + d * d / c2
        return d / math.sqrt(v), klr, logF(ab, q1) - logF(ab, q0), logF(eb, q1) - logF(eb, q0)

    def night_stats(kern):
        z, k, p, e = zip(*kern)
        return max(z), max(k), max(p), max(e), log_esp(k, m), log_esp(p, m), log_esp(e, m)

    def null_night():
        nt = night()
        eb = None if inf else eb_grid([x[1] for x in nt], K)
        return nt, eb, [stats(*x, eb) for x in nt]

    # Calibration: the (1 - alpha) quantile of each test's night maximum on null nights.
    cal = [night_stats(null_night()[2]) for _ in range(draws)]
    thr = [sorted(c[t] for c in cal)[math.ceil((1 - alpha) * draws) - 1] for t in range(7)]
    fa = [0] * 7
    hit_night = [0] * 7   # z, klr, plr, elr: a slowed kernel flagged; knp, pnp, enp: the night flagged
    hit_kern = [0] * 4
    hit_worst = [0] * 4
    for _ in range(draws):
        nt, eb, base = null_night()
        for t, v in enumerate(night_stats(base)):
            fa[t] += v > thr[t]
        for subset, count_all in ((rng.sample(range(n), m), True), (big4, False)):
            if model == "smooth" and not count_all:   # the night's own noisiest
                subset = sorted(range(n), key=lambda i: -nt[i][0])[:m]
            alt = list(base)
            for i in subset:
                alt[i] = stats(nt[i][0], nt[i][1], nt[i][2] + delta, eb)
            flags = [[alt[i][t] > thr[t] for i in subset] for t in range(4)]
            if count_all:
                for t in range(4):
                    hit_night[t] += any(flags[t])
                    hit_kern[t] += sum(flags[t])
                z, k, p, e = zip(*alt)
                hit_night[6] += log_esp(e, m) > thr[6]
                hit_night[4] += log_esp(k, m) > thr[4]
                hit_night[5] += log_esp(p, m) > thr[5]
            else:
                for t in range(4):
                    hit_worst[t] += any(flags[t])
    return dict(model=model, K=K, fa=[f / draws for f in fa], night=[x / draws for x in hit_night],
                kern=[x / (m * draws) for x in hit_kern], worst=[x / draws for x in hit_worst])


def grid_h(sds):
    """Silverman bandwidth of log sd."""
    ls = [math.log(s) for s in sds]
    q = st.quantiles(ls, n=4)
    return 0.9 * min(st.stdev(ls), (q[2] - q[0]) / 1.34) * len(ls) ** -0.2


def smooth_grid(sds, points=41):
    """G smoothed: a Gaussian kernel density on log sd, on a grid (weights sum to 1)."""
    h, ls = grid_h(sds), [math.log(s) for s in sds]
    lo, hi = min(ls) - 3 * h, max(ls) + 3 * h
    xs = [lo + (hi - lo) * g / (points - 1) for g in range(points)]
    w = [sum(math.exp(-0.5 * ((x - l) / h) ** 2) for l in ls) for x in xs]
    return [(math.exp(x), wi / sum(w)) for x, wi in zip(xs, w)]


def wilson_half(p, n, z=1.96):
    return z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)


def main():
    ap = argparse.ArgumentParser(description="Upper bound on a nightly gate's power, from real nights.")
    ap.add_argument("files", nargs="+", metavar="NIGHT.json", help="one machine session's nights, in order")
    ap.add_argument("--nights", nargs="+", default=["3", "5", "8", "10", "inf"], help="K prior nights ('inf': known mean)")
    ap.add_argument("--draws", type=int, default=20000, help="null nights to calibrate, and as many to measure")
    ap.add_argument("--seed", type=int, default=51)
    ap.add_argument("--slowdown", type=float, default=0.05)
    ap.add_argument("--slowed", type=int, default=4)
    ap.add_argument("--alpha", type=float, default=0.01, help="probability that an unchanged night FAILs anything")
    ap.add_argument("--models", default="normal,resample,smooth")
    ap.add_argument("--session2", nargs="*", default=[], help="another session's nights: their sds, for comparison")
    ap.add_argument("--divide", action="append", default=[], metavar="FILE=FACTOR:KERNEL,...",
                    help="an injected slowdown to divide out (FILE: basename)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    a = ap.parse_args()
    divide = {}
    for spec in a.divide:
        f, rest = spec.split("=", 1)
        factor, ks = rest.split(":", 1)
        divide[f] = (float(factor), set(ks.split(",")))
    rng = random.Random(a.seed)

    nights = [load(f, divide) for f in a.files]
    ks, res, shared = residuals(nights)
    J = len(nights)
    sd = {k: st.stdev(res[k]) for k in ks}
    rsd = {k: mad_sd(res[k]) for k in ks}
    reps = {k: st.median(len(n[k]) for n in nights) for k in ks}
    within = {k: st.median(mad_sd(n[k]) for n in nights) for k in ks}
    # A run's median of n repetitions has variance ~ (pi/2) within^2 / n: its share of the nights' variance.
    wvar = {k: math.pi / 2 * within[k] ** 2 / reps[k] for k in ks}
    null_kurt = sorted(kurt([rng.gauss(0, 1) for _ in range(J)]) for _ in range(20000))
    s2 = {}
    if a.session2:
        k2, r2, _ = residuals([load(f, divide) for f in a.session2])
        s2 = {k: st.stdev(r2[k]) for k in k2}

    print(f"## Step 1: the nights ({J} nights, {len(ks)} kernels; shared factor per night: "
          f"{', '.join(f'{100 * s:+.2f}%' for s in shared)})\n")
    print("| kernel | reps | within-run CV | within share of night var | night sd | robust sd (MAD) | sd/robust "
          "| excess kurtosis (pctl vs normal) | robust z > 3.5 (night: z) | shape |"
          + (" session-2 sd |" if s2 else ""))
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |" + (" ---: |" if s2 else ""))
    shapes = {}
    for k in sorted(ks, key=sd.get):
        g2 = kurt(res[k])
        pct = bisect.bisect(null_kurt, g2) / len(null_kurt)
        med = st.median(res[k])
        jumps = [(j + 1, (x - med) / rsd[k]) for j, x in enumerate(res[k]) if abs(x - med) > 3.5 * rsd[k]]
        shape = "heavy-tailed" if pct > 0.95 else "flat (two-state?)" if pct < 0.05 else "normal-like"
        shape += ", jumps" if jumps else ""
        shapes[k] = shape
        print(f"| {k} | {reps[k]:g} | {100 * within[k]:.2f}% | {wvar[k] / sd[k] ** 2:.3f} | {100 * sd[k]:.2f}% "
              f"| {100 * rsd[k]:.2f}% | {sd[k] / rsd[k]:.2f} | {g2:+.2f} ({100 * pct:.0f}%) "
              f"| {', '.join(f'{j}: {z:+.1f}' for j, z in jumps) or '-'} | {shape} |"
              + (f" {100 * s2[k]:.2f}% |" if k in s2 else (" - |" if s2 else "")))
    rho, p = spearman([math.log(wvar[k]) for k in ks], [math.log(sd[k] ** 2) for k in ks], rng)
    print(f"\nSpearman(log within-run variance/n, log night-to-night variance) over {len(ks)} kernels: "
          f"rho = {rho:+.2f}, permutation p = {p:.2f}.")
    # Step 3 (G conditional on the within-run spread) only pays if the within-run spread predicts it.
    print("Step 3 (G conditional on the within-run variance): " + (
        "skipped: the within-run spread does not predict the night-to-night spread." if p >= 0.05 else
        "the correlation looks usable, but this script does not model it: the bounds below ignore it."))
    print(f"Within-run variance of the median is at most {100 * max(wvar[k] / sd[k] ** 2 for k in ks):.0f}% "
          f"of a kernel's night-to-night variance (median {100 * st.median(wvar[k] / sd[k] ** 2 for k in ks):.0f}%).")
    out = [k for k in ks if shapes[k] != "normal-like"]
    print(f"Kernels outside the normal 5-95% kurtosis band or with a jump: {len(out)} of {len(ks)} "
          f"(about {0.1 * len(ks):.1f} expected by chance): {', '.join(f'{k} ({shapes[k]})' for k in out) or 'none'}.")
    if s2:
        common = [k for k in ks if k in s2]
        r12, p12 = spearman([sd[k] for k in common], [s2[k] for k in common], rng)
        print(f"Spearman(session-1 sd, session-2 sd) over {len(common)} kernels: rho = {r12:+.2f}, p = {p12:.3f}.")

    sds = [sd[k] for k in ks]
    rlist = [res[k] for k in ks]
    emp = [(s, 1 / len(sds)) for s in sds]
    tasks = []
    for model in a.models.split(","):
        for kk in a.nights:
            K = math.inf if kk == "inf" else int(kk)
            if model == "resample" and (math.isinf(K) or K + 1 > J):
                continue
            grid = smooth_grid(sds) if model == "smooth" else emp
            tasks.append((model, K, sds, rlist, grid, a.draws, a.seed, math.log1p(a.slowdown), a.slowed, a.alpha))
    with Pool(a.jobs) as pool:
        rows = pool.map(simulate, tasks)

    pct = lambda x: f"{100 * x:.1f}%"
    print(f"\n## Step 2: power at {100 * a.alpha:g}% A/A false alarm ({a.slowed} random kernels of {len(ks)} "
          f"slowed by {100 * a.slowdown:g}%)\n")
    print("Nights: a slowed kernel flagged (per-kernel tests) or the night flagged (NP night bounds). "
          "Kernels: slowed kernels flagged. Worst: the noisiest kernels slowed.\n")
    print("| noise | K | known sigma, z: nights | known sigma, LR: nights | known sigma, LR: kernels "
          "| known sigma NP night bound | G-prior LR: nights | G-prior LR: kernels | G-prior NP night bound "
          f"| EB LR: nights | EB LR: kernels | worst {a.slowed}: known-sigma LR nights "
          f"| worst {a.slowed}: G-prior LR nights | worst {a.slowed}: EB LR nights | EB NP night |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        nt, kn, w = r["night"], r["kern"], r["worst"]
        print(f"| {r['model']} | {'inf' if math.isinf(r['K']) else r['K']} | {pct(nt[0])} | {pct(nt[1])} | {pct(kn[1])} "
              f"| {pct(nt[4])} | {pct(nt[2])} | {pct(kn[2])} | {pct(nt[5])} | {pct(nt[3])} | {pct(kn[3])} "
              f"| {pct(w[1])} | {pct(w[2])} | {pct(w[3])} | {pct(nt[6])} |")
    print("\nEB LR: the G-prior LR with G a log-normal fitted tonight to the 18 kernels' K-night sums of squares "
          "(no oracle G; its threshold is still calibrated on the simulated null). EB NP night: the night's e_M of "
          "those EB LRs (what the gate's night test, harness/night_test.hpp, approaches with its null simulated "
          "from the fitted G).")
    print("\nA/A check on the measuring nights (calibrated on as many other nights): unchanged nights that "
          "FAIL anything, for known-sigma z / known-sigma LR / G-prior LR / EB LR / known-sigma NP / G-prior NP / EB NP:\n")
    for r in rows:
        print(f"- {r['model']}, K = {r['K']}: " + " / ".join(pct(f) for f in r["fa"]))
    print(f"\n{a.draws} calibration + {a.draws} measured nights per row; 95% Wilson half-width of a night "
          f"figure at most {100 * wilson_half(0.5, a.draws):.2f} points ({100 * wilson_half(0.05, a.draws):.2f} "
          f"near 5% or 95%), of a kernel figure at most {100 * wilson_half(0.5, a.slowed * a.draws):.2f} "
          f"(kernels of one night are not independent: read it as ~{100 * wilson_half(0.5, a.draws):.2f}); "
          f"the calibrated threshold adds +-{100 * wilson_half(a.alpha, a.draws):.2f} points to the false alarm.")


if __name__ == "__main__":
    main()
