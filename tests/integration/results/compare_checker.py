"""Runs the official mlperf-logging compliance checker (in this process, one import) and ours
(results_cli check --json) on the same corpus and fails on any differing verdict: same pass/fail,
and for failures the same failing keys and the same unkeyed messages.
Usage: compare_checker.py RESULTS_CLI MAKE_LOG WORKDIR"""
import json
import logging
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import corpus  # noqa: E402
from mlperf_logging.compliance_checker import mlp_compliance  # noqa: E402

logging.disable(logging.CRITICAL)


def normalize(msg):
    m = re.match(r"Required AT_LEAST_ONE occurrence of ('.*')$", msg)
    if m and " or " in msg:
        return "OR:" + ",".join(sorted(n.strip("'") for n in m.group(1).split(" or ")))
    if msg.startswith("Failed checks for "):
        return msg.split(" : ")[0]
    return msg


def official(path, ruleset):
    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", ruleset, False, False)
    try:
        valid = checker.check_file(path, f"training_{ruleset}/common.yaml")
    except BaseException as e:  # the official tool dies here (traceback, exit 1)
        return {"crash": f"{type(e).__name__}: {e}"[:200]}
    return {"passed": bool(valid), "keys": sorted(checker.overwritable),
            "unkeyed": sorted({normalize(m) for m in checker.not_overwritable}),
            "warnings": sorted(checker.warnings)}


def ours(cli, path, ruleset):
    p = subprocess.run([cli, "check", "--json", "--ruleset", ruleset, path], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return {"error": f"exit {p.returncode}: {p.stderr.strip()}"}
    j = json.loads(p.stdout)
    if (p.returncode == 0) != j["passed"]:
        return {"error": f"exit {p.returncode} but passed={j['passed']}"}
    return {"passed": j["passed"], "checker_error": j["checker_error"],
            "keys": sorted(m["key"] for m in j["failures"] if m["key"]),
            "unkeyed": sorted({normalize(m["message"]) for m in j["failures"] if not m["key"]}),
            "warnings": sorted(m["key"] for m in j["warnings"])}


def agree(off, our):
    """Same verdict: a crash of the official tool must be a FAIL with a reason on our side."""
    if "error" in our:
        return False
    if "crash" in off:
        return not our["passed"] and bool(our["checker_error"])
    same = off["passed"] == our["passed"] and off["warnings"] == our["warnings"] and not our["checker_error"]
    if same and not off["passed"]:
        same = off["keys"] == our["keys"] and off["unkeyed"] == our["unkeyed"]
    return same


def main():
    cli, make_log, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    mismatches, n, t_official = [], 0, 0.0
    verdicts = {"pass": 0, "fail": 0, "crash": 0}
    for name, rs, data in corpus.corpus(make_log):
        path = os.path.join(work, name + ".txt")
        with open(path, "wb") as f:
            f.write(data)
        t0 = time.perf_counter()
        off = official(path, rs)
        t_official += time.perf_counter() - t0
        our = ours(cli, path, rs)
        n += 1
        verdicts["crash" if "crash" in off else "pass" if off["passed"] else "fail"] += 1
        if not agree(off, our):
            mismatches.append((name, off, our))
    print(f"{n} logs: official pass {verdicts['pass']}, fail {verdicts['fail']}, crash {verdicts['crash']}; "
          f"official checker time {t_official:.1f} s")
    for name, off, our in mismatches:
        print(f"MISMATCH {name}\n  official: {off}\n  ours:     {our}")
    if mismatches:
        print(f"{len(mismatches)} of {n} verdicts differ")
        sys.exit(1)
    print("all verdicts agree")


if __name__ == "__main__":
    main()
