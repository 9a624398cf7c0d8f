"""Scores synthetic 10-run BERT result sets with the official RCP checker (as the package checker
runs it: pruned RCPs, writing scaling.json) followed by the official result summarizer, and with
ours (results_cli score --json), and fails unless every number agrees to 1e-9 relative.
Also: the runs ours marks "counted" are the ones the official olympic mean averaged, runs come in
run order (result_2 before result_10), and a run whose time to train is not a finite number is an
invalid run (scored as a failed run is) where the official summarizer would sort and average it.
Usage: compare_scoring.py RESULTS_CLI MAKE_LOG WORKDIR"""
import contextlib
import io
import json
import logging
import math
import os
import random
import re
import shutil
import subprocess
import sys

import numpy as np
from mlperf_logging.rcp_checker import rcp_checker
from mlperf_logging.result_summarizer import result_summarizer

logging.disable(logging.CRITICAL)
REL = 1e-9


def run(samples, minutes, status="success", accuracy=0.7213, train_samples=None):
    return dict(samples=samples, minutes=minutes, status=status, accuracy=accuracy, train_samples=train_samples)


def bad_time(r, time_ms):
    """Run r with run_stop's time_ms replaced (a bad timestamp: NaN, Infinity)."""
    return dict(r, run_stop_time=time_ms)


def failed_run(samples=3000000):
    return run(samples, 9.0, "aborted", 0.70)


def spread(rng, mean, sd, n=10):
    return [run(int(rng.gauss(mean, sd)), round(rng.uniform(4.5, 6.5), 4)) for _ in range(n)]


def sets():
    rng = random.Random(7)
    yield "all_pass_interp_1536", "5.0.0", 1536, spread(rng, 2600000, 80000)
    yield "one_failed", "5.0.0", 1536, spread(rng, 2600000, 80000, 9) + [failed_run()]
    yield "two_failed", "5.0.0", 1536, spread(rng, 2600000, 80000, 8) + [failed_run(), failed_run()]
    yield "found_448_pass", "5.0.0", 448, spread(rng, 2450000, 90000)
    yield "found_4608_fail", "5.0.0", 4608, spread(rng, 2000000, 50000)
    yield "interp_1536_fail", "5.0.0", 1536, spread(rng, 2000000, 50000)
    yield "interp_1536_scaled", "5.0.0", 1536, spread(rng, 2450000, 30000)
    yield "interp_576", "5.0.0", 576, spread(rng, 2500000, 60000)
    yield "interp_13888", "5.0.0", 13888, spread(rng, 4900000, 90000)
    yield "smaller_256_slower", "5.0.0", 256, spread(rng, 2600000, 60000)
    yield "smaller_256_missing", "5.0.0", 256, spread(rng, 2000000, 60000)
    yield "larger_20000_missing", "5.0.0", 20000, spread(rng, 6000000, 60000)
    yield "mixed_batch_sizes", "5.0.0", [1536] * 9 + [3072], spread(rng, 2600000, 80000)
    yield "found_6144_scaled", "4.1.0", 6144, spread(rng, 3260000, 20000)
    yield "all_pass_3_1", "3.1.0", 3072, spread(rng, 2700000, 70000)
    yield "all_pass_4_0", "4.0.0", 8192, spread(rng, 4000000, 70000)
    # --bert-train-samples: the RCP takes the train_samples line (here 300k more than the last eval)
    yield "train_samples_1536", "5.0.0", 1536, [dict(r, train_samples=r["samples"] + 300000)
                                                for r in spread(rng, 2450000, 30000)]
    # 12 runs: ours lists them in run order; the official summarizer takes any count.
    yield "twelve_runs", "5.0.0", 1536, spread(rng, 2600000, 80000, 12)
    # An infinite time to train: the official summarizer sorts it last and drops it as the slowest,
    # ours drops it as invalid; the score is the same.
    runs = spread(rng, 2600000, 80000)
    yield "infinite_time_to_train", "5.0.0", 1536, runs[:4] + [bad_time(runs[4], "Infinity")] + runs[5:]
    # NaN: the official summarizer's sort and mean are then undefined (see ORACLE_AS for what we expect).
    runs = spread(rng, 2600000, 80000)
    yield "nan_time_to_train", "5.0.0", 1536, runs[:6] + [bad_time(runs[6], "NaN")] + runs[7:]


# Sets whose official score is undefined: the official tools score this stand-in instead, where each
# run with a bad timestamp is a non-compliant run (accuracy below the target) with the same RCP samples.
def oracle_stand_in(runs):
    return [dict(r, accuracy=0.70, run_stop_time=None) if r.get("run_stop_time") == "NaN" else r for r in runs]


ORACLE_AS = {"nan_time_to_train": oracle_stand_in}


def make_set(make_log, d, ruleset, gbs, runs):
    os.makedirs(d)
    for i, r in enumerate(runs):
        args = [make_log, "--ruleset", ruleset, "--gbs", str(gbs[i] if isinstance(gbs, list) else gbs), "--seed", str(1000 + i),
                "--samples", str(r["samples"]), "--minutes", str(r["minutes"]), "--status", r["status"],
                "--accuracy", str(r["accuracy"]), "--start-ms", str(1700000000000 + i * 10**7)]
        if r.get("train_samples") is not None:
            args += ["--train-samples", str(r["train_samples"])]
        log = subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout.decode()
        if r.get("run_stop_time"):
            log = re.sub(r'("time_ms": )[0-9]+(, "event_type": "[A-Z_]+", "key": "run_stop")',
                         lambda m: m.group(1) + r["run_stop_time"] + m.group(2), log)
            assert r["run_stop_time"] in log
        with open(os.path.join(d, f"result_{i}.txt"), "w") as f:
            f.write(log)


def official(d, ruleset, train_samples=False):
    out = {}
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            ok, msg, norm = rcp_checker.check_directory(d, "training", ruleset, False, train_samples, rcp_file=None,
                                                        rcp_pass="pruned_rcps", rcp_bypass=False, set_scaling=True)
            out.update(rcp_passed=ok, rcp_message=msg, norm=norm)
            files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("result_"))
            bs, epochs, _ = rcp_checker.get_submission_epochs(files, ruleset, train_samples)
            if epochs is not None:
                epochs.sort()
                out["subm_mean"] = float(np.mean(epochs[1:len(epochs) - 1]))
        except Exception as e:  # noqa: BLE001 (the official RCP checker crashes on some inputs)
            out.update(rcp_crash=f"{type(e).__name__}: {e}")
        track, _, score, _, scaling = result_summarizer._compute_strong_score_standalone(
            "bert", "sys", False, d, "training", ruleset, return_full_scores=True)
    out.update(score=score, scaling=scaling,
               minutes={os.path.basename(k): v for k, v in track.items()})
    return out


def ours(cli, d, ruleset, extra=()):
    p = subprocess.run([cli, "score", "--json", "--ruleset", ruleset, *extra, d], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"our score failed on {d}: exit {p.returncode} {p.stderr}")
    return json.loads(p.stdout)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def main():
    cli, make_log, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    bad = []
    for name, ruleset, gbs, runs in sets():
        d = os.path.join(work, name)
        make_set(make_log, d, ruleset, gbs, runs)
        oracle_dir = d
        if name in ORACLE_AS:
            oracle_dir = d + "_oracle"
            make_set(make_log, oracle_dir, ruleset, gbs, ORACLE_AS[name](runs))
        ts = name.startswith("train_samples")
        flag = ["--bert-train-samples"] if ts else []
        our = ours(cli, d, ruleset, flag)  # scaling from the RCP normalization (package checker + summarizer)
        off = official(oracle_dir, ruleset, ts)  # writes scaling.json like the package checker
        if oracle_dir != d and os.path.exists(os.path.join(oracle_dir, "scaling.json")):
            shutil.copy(os.path.join(oracle_dir, "scaling.json"), d)
        our_file = ours(cli, d, ruleset, ["--scaling-json", *flag])  # the bare summarizer on that scaling.json
        problems = []
        if "rcp_crash" in off:
            if our["rcp"]["passed"] or our["rcp"]["summary"] != "Unknown state":
                problems.append(f"official RCP crashed ({off['rcp_crash']}), ours {our['rcp']}")
        else:
            if off["rcp_passed"] != our["rcp"]["passed"] or off["rcp_message"] != our["rcp"]["message"]:
                problems.append(f"RCP {off['rcp_passed']} '{off['rcp_message']}' vs {our['rcp']['passed']} "
                                f"'{our['rcp']['message']}'")
            if not close(off["norm"], our["rcp"]["normalization_factor"]):
                problems.append(f"normalization {off['norm']} vs {our['rcp']['normalization_factor']}")
            if "subm_mean" in off and not close(off["subm_mean"], our["rcp"]["submission_mean"]):
                problems.append(f"submission mean {off['subm_mean']} vs {our['rcp']['submission_mean']}")
        for label, mine in (("score", our), ("score with scaling.json", our_file)):
            if not close(off["score"], mine["score_minutes"]):
                problems.append(f"{label} {off['score']} vs {mine['score_minutes']}")
        if not close(off["scaling"], our_file["scaling_factor"]):
            problems.append(f"scaling factor {off['scaling']} vs {our_file['scaling_factor']}")
        mine_minutes = {r["file"]: r["minutes"] for r in our["runs"] if r["minutes"] is not None}
        finite = {k: v for k, v in off["minutes"].items() if math.isfinite(v)}
        if set(mine_minutes) != set(finite) or any(not close(finite[k], mine_minutes[k]) for k in mine_minutes):
            problems.append(f"per-run minutes {off['minutes']} vs {mine_minutes}")
        bad_runs = {f"result_{i}.txt" for i, r in enumerate(runs) if r.get("run_stop_time")}
        for r in our["runs"]:
            if (r["file"] in bad_runs) != (r["compliant"] and not r["valid"]):
                problems.append(f"{r['file']}: valid {r['valid']}, compliant {r['compliant']}, bad timestamp "
                                f"{r['file'] in bad_runs}")
            if r["file"] in bad_runs and (r["olympic"] != "dropped (failed)" or
                                          not r["failure"].startswith("time to train is not a finite number")):
                problems.append(f"{r['file']}: {r['olympic']}, {r['failure']}")
        files = [r["file"] for r in our["runs"]]
        if files != [f"result_{i}.txt" for i in range(len(runs))]:
            problems.append(f"runs not in run order: {files}")
        # The runs marked counted are the ones the official olympic mean averaged.
        counted = [r["minutes"] for r in our["runs"] if r["olympic"] == "counted"]
        if off["score"] is None:
            if counted:
                problems.append(f"no official score, yet runs marked counted: {counted}")
        elif not counted or not close(off["score"] / off["scaling"], sum(sorted(counted)) / len(counted)):
            problems.append(f"official olympic mean {off['score'] / off['scaling']}, the runs marked counted "
                            f"{sorted(counted)}")
        status = "ok" if not problems else "MISMATCH"
        print(f"{status:8} {name:24} score {off['score']} | RCP {off.get('rcp_message', off.get('rcp_crash'))} "
              f"| scaling {off['scaling']}")
        bad += [f"{name}: {p}" for p in problems]
    for b in bad:
        print("  " + b)
    if bad:
        sys.exit(1)
    print("all scores agree to 1e-9")


if __name__ == "__main__":
    main()
