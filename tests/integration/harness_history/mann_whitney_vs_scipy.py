"""mann_whitney_u (harness/history) against scipy.stats.mannwhitneyu with its defaults, on random sets of
runs: sizes 1-15 against 1-15 (both methods: exact below 9 runs without ties, asymptotic otherwise),
with and without ties, plus sets of the sizes `harness compare` sees (2, 5, 10 runs). Same U1, and p to
1e-9 relative. Usage: mann_whitney_vs_scipy.py MWU_CLI"""
import json
import random
import subprocess
import sys

from scipy.stats import mannwhitneyu

rng = random.Random(46)
cases = []
for _ in range(600):
    n1, n2 = rng.randint(1, 15), rng.randint(1, 15)
    if rng.random() < 0.4:  # ties: times rounded as logs round them
        x = [round(rng.gauss(10, 1), 1) for _ in range(n1)]
        y = [round(rng.gauss(10.5, 1), 1) for _ in range(n2)]
    else:
        x = [rng.gauss(10, 1) for _ in range(n1)]
        y = [rng.gauss(10 + rng.choice([0, 0.5, 2]), 1) for _ in range(n2)]
    cases.append((x, y))
for n in (2, 5, 10):
    cases.append(([float(i) for i in range(n)], [float(i) + 100 for i in range(n)]))

proc = subprocess.run([sys.argv[1]], input="".join(json.dumps({"x": x, "y": y}) + "\n" for x, y in cases),
                      capture_output=True, text=True, check=True)
ours = [json.loads(l) for l in proc.stdout.splitlines()]
assert len(ours) == len(cases), f"{len(ours)} answers for {len(cases)} cases"
bad, methods = 0, set()
for (x, y), o in zip(cases, ours):
    ref = mannwhitneyu(x, y)
    methods.add(o["method"])
    if o["u1"] != ref.statistic or abs(o["p"] - ref.pvalue) > 1e-9 * max(1.0, ref.pvalue):
        bad += 1
        print(f"MISMATCH x={x} y={y}: ours U1={o['u1']} p={o['p']} ({o['method']}), scipy U1={ref.statistic} p={ref.pvalue}")
assert methods == {"exact", "asymptotic"}, methods
print(f"{len(cases)} cases, {bad} mismatches with scipy.stats.mannwhitneyu")
sys.exit(1 if bad else 0)
