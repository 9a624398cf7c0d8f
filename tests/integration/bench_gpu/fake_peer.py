#!/usr/bin/env python3
"""Stands in for `PYTHON bench/peers/hf_bert.py ...` in stage_checks.sh (scripts/bench-gpu run with
PYTHON set to this file: argv[1] is the peer script's path). Follows the peer's background protocol:
after a second creates --ready-file, waits for --go-file, then writes DIR/<mode>.json for each --batches
file (seq_per_s 123 padded, 456 packed) and exits 0."""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--batches", action="append", required=True)
ap.add_argument("--ready-file", required=True)
ap.add_argument("--go-file", required=True)
ap.add_argument("--out-dir", required=True)
args, _ = ap.parse_known_args(sys.argv[2:])
time.sleep(1)
open(args.ready_file, "w").close()
while not os.path.exists(args.go_file):
    time.sleep(0.05)
for path in args.batches:
    with open(path) as f:
        mode = json.load(f)["mode"]
    with open(os.path.join(args.out_dir, mode + ".json"), "w") as f:
        json.dump({"mode": mode, "seq_per_s": 123.0 if mode == "padded" else 456.0}, f)
