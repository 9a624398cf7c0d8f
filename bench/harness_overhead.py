#!/usr/bin/env python3
"""The harness's own overhead on the local Slurm with emulated nodes (slurm/local-cluster), at 1, 8 and
32 nodes of RANKS ranks: what the harness adds around the trainer, not the trainer.
  plan_s          `harness run --dry-run` of the set's YAML inside an allocation's environment (median of 3)
  setup_s         the set's setup steps (none here)
  preflight_s     the preflight on every node (srun -l, one task per node)
  cache_clear_s   one experiment's cache clear on every node (mean)
  first_line_s    launch -> rank 0's first MLPerf line (mean over the experiments), through the harness
  peer_first_line_s  the same step started by a bare `srun` in the same allocation: the peer
  launch_ratio    first_line_s / peer_first_line_s (1.0 = the harness adds nothing to the launch)
  check_s         compliance check + score of one result (mean)
The ranks run dist-smoke (every rank meets all the others: PMI2, the trainer's CPU collectives) and
then the fake trainer's MLPerf log (tests/integration/harness_run/fake_trainer.cpp), so the launch
includes a real NODESxRANKS rendezvous. Appends one run (commit, date, machine, figures per size) to
bench/results/harness_overhead.json.

  sudo SLURM_NODES=33 SLURM_CPUS=8 SLURM_FAKE_GPUS=0 SLURM_WAIT_S=180 slurm/local-cluster up
  bench/harness_overhead.py --harness build/harness --fake build/harness_run_fake_trainer --smoke build/dist-smoke
        [--nodes 1,8,32] [--ranks 4] [--nexp 2] [--out bench/results/harness_overhead.json]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def yaml_for(work, args, nodes):
    out = os.path.join(work, f"set{nodes}")
    cmd = (f"{args.smoke} --count 4096 && exec {args.fake} --config {out}/run.yaml --step-ms 20 "
           f"--eval-samples 230000")
    text = f"""system: {{name: OVERHEAD{nodes}}}
launcher: {{type: srun, srun: {{mpi: pmi2}}}}
topology: {{synthetic: "pack:1 numa:{args.ranks} core:1 pu:1", compare: false}}
binding: {{cpu: none, mem: none, unit: numa}}
nodes: {{count: {nodes}, ranks_per_node: {args.ranks}}}
trainer: {{kind: external, argv: [sh, -c, "{cmd}"]}}
benchmark: {{data: {{train_dir: {work}/data, eval_dir: {work}/data}}}}
experiment: {{nexp: {args.nexp}, division: open, output_dir: {out}, cache_clear: best-effort}}
"""
    os.makedirs(os.path.join(work, "data"), exist_ok=True)  # the preflight reads the data paths on each node
    path = os.path.join(work, f"set{nodes}.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path, out, cmd


def plan_seconds(args, yaml, nodes):
    env = dict(os.environ, SLURM_JOB_NODELIST=f"node[1-{nodes}]" if nodes > 1 else "node1", SLURM_JOB_ID="0")
    times = []
    for _ in range(3):
        t = time.monotonic()
        subprocess.run([args.harness, "run", yaml, "--dry-run"], env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.monotonic() - t)
    return statistics.median(times)


def salloc(nodes, argv, timeout):
    hosts = f"node[1-{nodes}]" if nodes > 1 else "node1"
    return subprocess.run(["timeout", str(timeout), "salloc", "-N", str(nodes), "-w", hosts, "--exclusive"] + argv,
                          capture_output=True, text=True)


def peer_probe(argv):
    """Inside an allocation: start the step with bare srun, print seconds to rank 0's first MLPerf line."""
    t = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = None
    for line in p.stdout:
        if first is None and line.lstrip().startswith("0: ") and ":::MLLOG" in line:  # srun -l pads " 0: "
            first = time.monotonic() - t
    p.wait()
    print(json.dumps({"first_line_s": first, "rc": p.returncode}))


def measure(args, work, nodes):
    yaml, out, cmd = yaml_for(work, args, nodes)
    row = {"nodes": nodes, "ranks_per_node": args.ranks, "world_size": nodes * args.ranks}
    row["plan_s"] = plan_seconds(args, yaml, nodes)
    t = time.monotonic()
    r = salloc(nodes, [args.harness, "run", yaml], 1800)
    row["set_wall_s"] = time.monotonic() - t
    if r.returncode != 0:
        sys.exit(f"the {nodes}-node set failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    s = json.load(open(os.path.join(out, "state.json")))
    ex = s["experiments"]
    row["setup_s"] = s["timings"]["setup_s"]
    row["preflight_s"] = s["timings"]["preflight_s"]
    for k in ("cache_clear_s", "first_line_s", "check_s"):
        row[k] = statistics.mean(e["timings"][k] for e in ex)
    # The peer: the same step as bare srun, with the first experiment's run.yaml in place.
    peer_cmd = cmd.replace(f"{out}/run.yaml", f"{out}/configs/run_01.yaml")
    srun = ["srun", "-l", "--mpi=pmi2", f"--nodes={nodes}", f"--ntasks={nodes * args.ranks}",
            f"--ntasks-per-node={args.ranks}", "--cpu-bind=none", "sh", "-c", peer_cmd]
    peers = []
    for _ in range(args.nexp):
        p = salloc(nodes, [sys.executable, os.path.abspath(__file__), "--peer-probe", "--"] + srun, 900)
        peers.append(json.loads(p.stdout.strip().splitlines()[-1])["first_line_s"])
    if None in peers:
        sys.exit(f"the bare srun of the {nodes}-node step printed no MLPerf line of rank 0")
    row["peer_first_line_s"] = statistics.mean(peers)
    row["launch_ratio"] = row["first_line_s"] / row["peer_first_line_s"]
    print(json.dumps(row), flush=True)
    return row


def main():
    if "--peer-probe" in sys.argv:
        peer_probe(sys.argv[sys.argv.index("--") + 1:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--harness", required=True)
    ap.add_argument("--fake", required=True)
    ap.add_argument("--smoke", required=True)
    ap.add_argument("--nodes", default="1,8,32")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--nexp", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(REPO, "bench/results/harness_overhead.json"))
    args = ap.parse_args()
    for k in ("harness", "fake", "smoke"):
        setattr(args, k, os.path.abspath(getattr(args, k)))
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    run = {"commit": commit, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": f"{platform.node()}, {os.cpu_count()} CPUs, {platform.machine()}",
           "load_before": os.getloadavg()[0], "sizes": []}
    with tempfile.TemporaryDirectory(prefix="bert-overhead-") as work:
        for n in [int(x) for x in args.nodes.split(",")]:
            run["sizes"].append(measure(args, work, n))
    run["load_after"] = os.getloadavg()[0]
    runs = json.load(open(args.out)) if os.path.exists(args.out) else []
    runs.append(run)
    with open(args.out, "w") as f:
        json.dump(runs, f, indent=2)
        f.write("\n")
    print(f"{'nodes':>5} {'ranks':>5} {'plan s':>7} {'preflight s':>11} {'cache clear s':>13} {'first line s':>12} "
          f"{'bare srun s':>11} {'ratio':>6} {'check s':>7}")
    for r in run["sizes"]:
        print(f"{r['nodes']:>5} {r['world_size']:>5} {r['plan_s']:>7.3f} {r['preflight_s']:>11.2f} {r['cache_clear_s']:>13.2f} "
              f"{r['first_line_s']:>12.2f} {r['peer_first_line_s']:>11.2f} {r['launch_ratio']:>6.2f} {r['check_s']:>7.3f}")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
