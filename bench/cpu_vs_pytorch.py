#!/usr/bin/env python3
"""Ours (build/cpu_step) against PyTorch CPU (bench/peers/hf_bert_cpu.py) on the same sequences,
run alternately in the same session (ours, peer, ours, peer, ...), each run a fresh process with its
own warm-up steps excluded. Two kinds of batch (the `mode` of each configuration):
  dense:  one full-length sequence per row, every token real, the same rows for both;
  packed: MLPerf-like sequence lengths (mean ~254 of 512: half of a padded row is padding), ours
          packed up to 3 per row as our trainer runs packed data, PyTorch one per padded row with an
          attention mask as MLPerf's reference does. The same sequences per step for both.
Throughput is sequences/s either way. Per configuration: the median over rounds of each run's median
sequences/s for the whole step and for forward + backward alone, CPU seconds per sequence (all
threads; steadier than wall time on a shared machine), the ratios ours / PyTorch, peak RSS, and
the machine's load average around the runs. PyTorch runs once per allocator of --peer-malloc
(glibc, and tcmalloc / jemalloc preloaded as Intel's MLPerf scripts preload tcmalloc) in each round;
the fastest allocator's median is the peer every ratio is against (each allocator's are kept too). The GEMM ceiling: cpu_step counts its GEMM GFLOP per step
and times its own gemm() at the step's dominant shape (gemm_peak_gflops); gemm_floor_s = GFLOP / that
rate, and max_ratio_at_gemm_peak = PyTorch's step time / ours' gemm_floor_s, the highest ours / PyTorch
any implementation doing our GEMM work at that rate could reach (a goal above it needs faster GEMMs or
fewer GEMM flops, not less overhead). Ends with a table of both ratios. Appends the run to
bench/results/cpu_vs_pytorch.json (bench/record_run.py: commit, date, machine); with --out, writes
the run to that file instead.

  bench/cpu_vs_pytorch.py [--python .venv-bench/bin/python3] [--cpu-step build/cpu_step]
        [--set default|full|matrix|packed|seq128|seq512|tiny] [--rounds 3] [--steps N --warmup N] [--threads 1,2] [--precision fp32,bf16] [--also NAME=CPU_STEP_BINARY]
        [--peer-malloc glibc,tcmalloc,jemalloc] [--out FILE]

--python: an interpreter with torch + transformers (default .venv-bench/, made by scripts/setup --bench). Sets: tiny (tiny/128/16 dense and tiny/512/4 packed: ~2 min), default (base/128/8: ~12 min on an idle 2-core machine),
full (base and large at seq 128 and 512: about 1.5 h at 2 cores), matrix (full's dense configurations
with fewer steps plus seq 512 packed for base and Large; ~25 min per round at 2 cores, loaded), seq128 / seq512
(base and Large at seq 128 / 512 dense, matrix's steps), packed (matrix's seq 512 packed configurations). --precision: each configuration in fp32 and/or bf16 (ours: run.precision bf16, bf16 GEMMs through
oneDNN; PyTorch: autocast bf16 on CPU). --also adds another cpu_step build
(e.g. the one before a change) to the alternation, reported under NAME with its ratio to PyTorch.
Not a CI test (CI has no torch)."""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_run  # noqa: E402  (bench/record_run.py)

HERE = os.path.dirname(os.path.abspath(__file__))
# PyTorch's CPU tensors come from malloc: glibc's returns large blocks to the kernel, so each step
# page-faults its activations again; Intel's MLPerf scripts preload tcmalloc. Debian packages
# (scripts/setup --bench): libtcmalloc-minimal4, libjemalloc2.
MALLOCS = {"glibc": None, "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4",
           "jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}
ROOT = os.path.dirname(HERE)

# (size, seq_len, rows, timed steps, warm-up steps, mode). Warm-up 3: PyTorch's first steps after one
# warm-up step ran 10-35 % slower than its steady state (base 128 fp32, 1 thread, 26 Nov: 4.7-5.7 s, then
# 4.2 s from the fourth step on; ours is steady from the second), which runs before 26 Nov 11:45 UTC
# (warm-up 1) counted against PyTorch.
SETS = {
    "tiny": [("tiny", 128, 16, 5, 3, "dense"), ("tiny", 512, 4, 5, 3, "packed")],
    "default": [("base", 128, 8, 3, 3, "dense")],
    # the dense rows alone, for several rounds: ~9 (seq128) / ~10 (seq512) min per round and PyTorch allocator
    "seq128": [("base", 128, 8, 2, 3, "dense"), ("large", 128, 4, 2, 3, "dense")],
    "seq512": [("base", 512, 2, 2, 3, "dense"), ("large", 512, 1, 2, 3, "dense")],
    # MLPerf-like lengths at 512: 4 (base) and 2 (Large) packs; the two batches hold 7 + 7 sequences of
    # mean length 264 and 3 + 3 of 336 (make_packed_batch takes packs in the pool's mix; before 26 Nov
    # 12:37 UTC it took them uniformly and these batches held 4 + 5 and 2 + 4 sequences of mostly full length)
    "packed": [("base", 512, 4, 2, 3, "packed"), ("large", 512, 2, 2, 3, "packed")],
    "full": [("base", 128, 8, 3, 3, "dense"), ("base", 512, 2, 3, 3, "dense"), ("large", 128, 4, 2, 3, "dense"),
             ("large", 512, 1, 2, 3, "dense")],
    # seq128, seq512 and packed together
    "matrix": [("base", 128, 8, 2, 3, "dense"), ("base", 512, 2, 2, 3, "dense"), ("base", 512, 4, 2, 3, "packed"),
               ("large", 128, 4, 2, 3, "dense"), ("large", 512, 1, 2, 3, "dense"), ("large", 512, 2, 2, 3, "packed")],
}


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def run_json(cmd, preload=None):
    env = dict(os.environ, LD_PRELOAD=preload) if preload else None
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=".venv-bench/bin/python3",
                    help="interpreter with torch + transformers (default: scripts/setup --bench's .venv-bench)")
    ap.add_argument("--cpu-step", default=os.path.join(ROOT, "build", "cpu_step"))
    ap.add_argument("--set", default="default", choices=sorted(SETS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, help="timed steps per run (default: the set's)")
    ap.add_argument("--warmup", type=int, help="warm-up steps per run (default: the set's)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--precision", default="fp32,bf16")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--peer-malloc", default=",".join(MALLOCS),
                    help="PyTorch's allocators, each run in the alternation; the fastest is the peer")
    ap.add_argument("--out")
    args = ap.parse_args()
    peer = os.path.join(HERE, "peers", "hf_bert_cpu.py")
    threads = [int(t) for t in args.threads.split(",")]
    mallocs = args.peer_malloc.split(",")
    for m in mallocs:
        if m not in MALLOCS:
            ap.error(f"--peer-malloc: '{m}' is not one of {', '.join(MALLOCS)}")
        if MALLOCS[m] and not os.path.exists(MALLOCS[m]):
            ap.error(f"--peer-malloc {m}: {MALLOCS[m]} is missing (scripts/setup --bench installs it)")
    ours = {"ours": args.cpu_step}
    for a in args.also:
        name, _, path = a.partition("=")
        ours[name] = path
    versions = run_json([args.python, "-c", "import json,torch,transformers;print(json.dumps("
                         "{'torch':torch.__version__,'transformers':transformers.__version__}))"])
    config = {"set": args.set, "rounds": args.rounds, "peer": versions, "steps_override": args.steps,
              "warmup_override": args.warmup}
    result = {"bench": "cpu_vs_pytorch", "started_utc": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z",
              "machine": record_run.machine(), "config": config, "results": []}
    # the run in progress, rewritten after every configuration (a long run interrupted keeps what it
    # measured); a finished run is appended to bench/results/cpu_vs_pytorch.json and this file removed
    out = args.out or os.path.join(HERE, "results", "cpu_vs_pytorch.inprogress.json")

    def write(complete):
        result["complete"] = complete
        result["written_utc"] = datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z"
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")

    with tempfile.TemporaryDirectory() as tmp:
        for size, seq, rows, steps, warmup, mode in SETS[args.set]:
            steps = args.steps or steps
            warmup = warmup if args.warmup is None else args.warmup
            batches = os.path.join(tmp, f"{size}_{seq}_{rows}_{mode}.json")
            mode_arg = ["--mode", mode] if mode != "dense" else []  # older builds (--also) know no --mode
            subprocess.run([args.cpu_step, "--size", size, "--seq-len", str(seq), "--rows", str(rows),
                            "--dump-batches", batches] + mode_arg, check=True)
            for t, prec in [(t, p) for p in args.precision.split(",") for t in threads]:
                common = ["--size", size, "--threads", str(t), "--steps", str(steps), "--warmup", str(warmup)]
                common += ["--precision", prec] if prec != "fp32" else []  # older builds (--also) know no flag
                # builds given with --also run fp32 only (an older build may not know --precision)
                impls = {n: b for n, b in ours.items() if n == "ours" or (prec == "fp32" and mode == "dense")}
                peers = {"pytorch_" + m: MALLOCS[m] for m in mallocs}
                runs = {name: [] for name in list(impls) + list(peers)}
                load = [loadavg()]
                for r in range(args.rounds):
                    for name, binary in impls.items():
                        runs[name].append(run_json([binary, "--seq-len", str(seq), "--rows", str(rows)] + common +
                                                   (mode_arg if name == "ours" else [])))
                    for name, preload in peers.items():
                        runs[name].append(run_json([args.python, peer, "--batches", batches] + common, preload))
                    load.append(loadavg())
                    print(f"{size} seq {seq} {mode} rows {rows} threads {t} {prec} round {r + 1}: " +
                          ", ".join(f"{n} {rs[-1]['seq_per_s']:.3g} seq/s" for n, rs in runs.items()) +
                          f", load {load[-1][0]:.2f}", file=sys.stderr, flush=True)
                entry = {"model": size, "seq_len": seq, "mode": mode, "rows": rows, "threads": t, "precision": prec,
                         "steps": steps, "warmup": warmup,
                         "loadavg_1_5_15": load, "pytorch_malloc": {}}
                for impl, rs in runs.items():
                    step = statistics.median(x["step_s_median"] for x in rs)
                    fb = statistics.median(x["fwd_bwd_s_median"] for x in rs)
                    seqs = [x.get("sequences", [rows] * len(x["step_s"])) for x in rs]  # older builds: rows
                    entry[impl] = {"seq_per_s": statistics.median(x["seq_per_s"] for x in rs),
                                   "fwd_bwd_seq_per_s": statistics.median(x["fwd_bwd_seq_per_s"] for x in rs),
                                   "sequences_per_step": seqs[0],
                                   "cpu_s_per_sequence": statistics.median(
                                       sum(x["step_cpu_s"]) / sum(n) for x, n in zip(rs, seqs)),
                                   "step_s_median": step, "fwd_bwd_s_median": fb,
                                   "optimizer_s_median": statistics.median(x["optimizer_s_median"] for x in rs),
                                   "step_cpu_s_median": statistics.median(x.get("step_cpu_s_median", float("nan"))
                                                                          for x in rs),
                                   "peak_rss_mib": max(x["peak_rss_mib"] for x in rs),
                                   "per_round_seq_per_s": [x["seq_per_s"] for x in rs]}
                    if impl in peers:  # each allocator's figures; the fastest becomes the peer ("pytorch")
                        entry["pytorch_malloc"][impl[len("pytorch_"):]] = entry.pop(impl)
                        continue
                    if all("gemm_floor_s" in x for x in rs):  # cpu_step's GEMM roofline (older builds: none)
                        entry[impl].update({k: statistics.median(x[k] for x in rs) for k in
                                            ("gemm_gflop_per_step", "gemm_peak_gflops", "gemm_floor_s", "gemm_share")})
                best = max(entry["pytorch_malloc"], key=lambda m: entry["pytorch_malloc"][m]["seq_per_s"])
                entry["pytorch"] = dict(entry["pytorch_malloc"][best], malloc=best)
                if "real_tokens" in runs["ours"][0]:
                    entry["real_tokens_per_step"] = runs["ours"][0]["real_tokens"]
                    entry["padded_tokens_per_step_pytorch"] = [n * seq for n in entry["pytorch"]["sequences_per_step"]]
                # CPU seconds per sequence (all threads): less sensitive to other load than wall time
                entry["cpu_time_ratio_pytorch_over_ours"] = (entry["pytorch"]["cpu_s_per_sequence"] /
                                                             entry["ours"]["cpu_s_per_sequence"])
                # the best ours / PyTorch any implementation doing our GEMM work at our measured GEMM rate could reach
                if "gemm_floor_s" in entry["ours"]:
                    entry["max_ratio_at_gemm_peak"] = entry["pytorch"]["step_s_median"] / entry["ours"]["gemm_floor_s"]
                entry["ratio_ours_over_pytorch_by_malloc"] = {
                    m: entry["ours"]["seq_per_s"] / v["seq_per_s"] for m, v in entry["pytorch_malloc"].items()}
                for name in impls:
                    suffix = "" if name == "ours" else "_" + name
                    entry[f"ratio{suffix}_ours_over_pytorch" if not suffix else f"ratio{suffix}_over_pytorch"] = (
                        entry[name]["seq_per_s"] / entry["pytorch"]["seq_per_s"])
                    entry[f"fwd_bwd_ratio_ours_over_pytorch" if not suffix else f"fwd_bwd_ratio{suffix}_over_pytorch"] = (
                        entry[name]["fwd_bwd_seq_per_s"] / entry["pytorch"]["fwd_bwd_seq_per_s"])
                result["results"].append(entry)
                write(False)
                print(json.dumps({k: v for k, v in entry.items() if k in ("model", "seq_len", "mode", "rows", "threads", "precision")
                                  or k.startswith(("ratio", "fwd_bwd_ratio", "cpu_time", "max_ratio"))}), file=sys.stderr, flush=True)
    if args.out:
        write(True)
    else:
        print(record_run.record("cpu_vs_pytorch", {"results": result["results"], "complete": True}, config), file=sys.stderr)
        os.remove(out)
    print("model seq mode rows threads precision: ours/pytorch (the fastest PyTorch allocator), max at GEMM peak "
          "(ours' GEMM share of its step)",
          file=sys.stderr)
    for e in result["results"]:
        ceiling = (f"{e['max_ratio_at_gemm_peak']:.2f} ({e['ours']['gemm_share']:.0%})"
                   if "max_ratio_at_gemm_peak" in e else "-")
        print(f"{e['model']} {e['seq_len']} {e['mode']} {e['rows']} {e['threads']} {e['precision']}: "
              f"{e['ratio_ours_over_pytorch']:.2f} ({e['pytorch']['malloc']}), {ceiling}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
