#!/usr/bin/env python3
"""Appends one run to bench/results/<bench>.json, the benchmark's one results file: a list of runs, oldest
first, each {"commit", "date", "machine", "config", "figures"} (and "note" where given).

  some_benchmark | bench/record_run.py BENCH [--config JSON] [--note TEXT]   # figures: the JSON on stdin
  import record_run; record_run.record(BENCH, figures, config=..., note=...)  # from a Python benchmark

"machine" tells CPUs apart: vendor, model name, family/model, the ISA features the kernels use
(AVX-512, AVX512-BF16, AMX), the CPUs this process may use, the kernel. "commit" is HEAD, with
"-dirty" when tracked files differ from it. The file is rewritten whole through a temporary file and a
rename, so a killed run leaves the previous list intact.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ISA_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16")


def machine():
    info = {"vendor": None, "model_name": None, "family": None, "model": None, "isa": {},
            "cpus": len(os.sched_getaffinity(0)), "kernel": platform.release()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "vendor_id" and info["vendor"] is None:
                    info["vendor"] = value
                elif key == "model name" and info["model_name"] is None:
                    info["model_name"] = value
                elif key == "cpu family" and info["family"] is None:
                    info["family"] = int(value)
                elif key == "model" and info["model"] is None:
                    info["model"] = int(value)
                elif key == "flags":
                    flags = set(value.split())
                    info["isa"] = {k: k in flags for k in ISA_FLAGS}
                    break
    except OSError:
        pass
    return info


def commit():
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "HEAD") or "unknown"
    return head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def record(bench, figures, config=None, note=None, path=None):
    path = path or os.path.join(HERE, "results", bench + ".json")
    runs = []
    if os.path.exists(path):
        with open(path) as f:
            runs = json.load(f)
    run = {"commit": commit(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": machine(), "config": config or {}, "figures": figures}
    if note:
        run["note"] = note
    runs.append(run)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix="." + bench, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(runs, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bench", help="the benchmark's name: bench/results/BENCH.json")
    ap.add_argument("--config", default="{}", help="what was run, as JSON (sizes, threads, rounds)")
    ap.add_argument("--note", help="one line: what changed, what to read the figures with")
    args = ap.parse_args()
    text = sys.stdin.read()
    try:
        figures = json.loads(text)
        config = json.loads(args.config)
    except json.JSONDecodeError as e:
        print(f"record_run: {args.bench}: the figures or --config are not JSON: {e}", file=sys.stderr)
        return 2
    print(f"record_run: appended to {record(args.bench, figures, config, args.note)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
