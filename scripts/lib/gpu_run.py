"""The run of scripts/bench-gpu on the GPU machine: the steps of gpu_steps.py, each within its own time
limit, the whole within BENCH_DEADLINE seconds (default 360: the device rule's 6 minutes of a call),
going on past a failing or hanging step; BENCH_ONLY (a regular expression) runs only the steps whose
name it matches (a second call for what the first did not reach). Writes ONE results file (gpu-run.json:
an entry of bench/results/gpu.json) and ONE tarball of logs (gpu-logs.tar.gz) to $OUT (default
build-gpu-run/), both rewritten after every step so that a killed run keeps what it did; prints the
step table. Exit 0 when nothing failed, 1 when a step failed, timed out or was cut by the deadline, 77
when every step skipped (no GPU: the CPU machine), 2 when the stage is missing or stale."""
import dataclasses
import datetime
import glob
import json
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import tarfile
import tempfile
import time

import gpu_stage
import gpu_steps

RESERVE_S = 15  # kept at the end of the deadline for the results and the tarball
STATUS_WIDTH = 8


class Context:
    def __init__(self, stage, src, work, manifest):
        self.stage, self.src, self.work, self.manifest = stage, src, work, manifest
        self.python = os.environ.get("PYTHON") or sys.executable
        self.steps = int(os.environ.get("BENCH_STEPS", "20"))
        self.size = os.environ.get("BENCH_SIZE", "large")

    def expand(self, argv):
        return [a.replace("{stage}", self.stage).replace("{src}", self.src).replace("{python}", self.python)
                for a in argv]


def nvidia_smi(*args):
    try:
        r = subprocess.run(["nvidia-smi", *args], text=True, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def device_info():
    info = {"device": "none", "gpus": 0, "driver": "none", "cuda": "none"}
    q = nvidia_smi("--query-gpu=name,driver_version,memory.total", "--format=csv,noheader")
    if q and q.strip():
        rows = [r.split(", ") for r in q.strip().splitlines()]
        info.update(device=rows[0][0], gpus=len(rows), driver=rows[0][1], memory=rows[0][2])
        m = re.search(r"CUDA Version: *([0-9.]+)", nvidia_smi() or "")
        if m:
            info["cuda"] = m.group(1)
    return info


def host_info():
    cpus = len(os.sched_getaffinity(0))
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    quota = ""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota = f.read().strip()
    except OSError:
        pass
    return f"{cpus} CPUs ({model or 'unknown model'}), cgroup cpu.max {quota or 'n/a'}"


def library_env(stage, work):
    """LD_LIBRARY_PATH: the staged libraries this machine lacks, the CUDA toolkit's and python's nvidia-*
    wheels' libraries; PYTHONPATH: the staged official checker."""
    libs = os.path.join(work, "libs")
    os.makedirs(libs, exist_ok=True)
    known = ""
    for ldconfig in ("ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"):
        try:
            known = subprocess.run([ldconfig, "-p"], text=True, capture_output=True).stdout
            break
        except OSError:
            continue
    for lib in glob.glob(os.path.join(stage, "lib", "*")):
        if f"{os.path.basename(lib)} " not in known:
            os.symlink(lib, os.path.join(libs, os.path.basename(lib)))
    dirs = [libs, "/usr/local/cuda/lib64", "/usr/local/cuda/lib"]
    for p in site.getsitepackages() + [site.getusersitepackages()]:
        dirs += sorted(glob.glob(os.path.join(p, "nvidia", "*", "lib")))
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(dirs + [env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else dirs)
    env["PYTHONPATH"] = os.path.join(stage, "python") + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def flag_known(binary, flag, env):
    try:
        r = subprocess.run([binary, "--help"], text=True, capture_output=True, env=env, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return flag in r.stdout + r.stderr


def launch(cmd, step, env, python, cwd, out):
    """Starts one command of a step, its output into `out`, in a session of its own (stop() ends it whole):
    our binaries with the staged libraries (env), a command of `python` in the machine's own environment,
    so that PyTorch loads the CUDA libraries it was built with."""
    base = dict(os.environ) if cmd[0] == python else env
    return subprocess.Popen(cmd, cwd=cwd, env={**base, **step.env}, stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)


def status_of(rc):
    return "PASS" if rc == 0 else "SKIP" if rc == 77 else "FAIL"


def run_commands(step, env, python, log, cwd, limit):
    """(status, rc, seconds): each command in turn until one fails; TIMEOUT when the limit kills it."""
    start = time.monotonic()
    rc = 0
    with open(log, "w") as out:
        for cmd in step.commands:
            out.write("$ " + " ".join(cmd) + "\n")
            out.flush()
            left = limit - (time.monotonic() - start)
            try:
                p = launch(cmd, step, env, python, cwd, out)
            except OSError as e:
                out.write(f"bench-gpu: cannot start {cmd[0]}: {e}\n")
                return "FAIL", 127, time.monotonic() - start
            try:
                rc = p.wait(timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                stop(p)
                out.write(f"\nbench-gpu: killed after its limit of {limit} s\n")
                return "TIMEOUT", None, time.monotonic() - start
            if rc != 0:
                break
    return status_of(rc), rc, time.monotonic() - start


def start_background(step, env, python, log, cwd, limit, background):
    """Runs the step's commands but the last (as run_commands), then starts the last and leaves it running
    (its output appended to the step's log): ("STARTED", None, seconds)."""
    start = time.monotonic()
    status, rc, secs = run_commands(dataclasses.replace(step, commands=step.commands[:-1]), env, python, log, cwd, limit)
    if status != "PASS":
        return status, rc, secs
    cmd = step.commands[-1]
    out = open(log, "a")
    out.write("$ " + " ".join(cmd) + "  (in the background)\n")
    out.flush()
    try:
        p = launch(cmd, step, env, python, cwd, out)
    except OSError as e:
        out.write(f"bench-gpu: cannot start {cmd[0]}: {e}\n")
        out.close()
        return "FAIL", 127, time.monotonic() - start
    background[step.name] = (p, log, out)
    return "STARTED", None, time.monotonic() - start


def stop(p):
    """Ends a started command's whole session: SIGTERM, then SIGKILL."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def not_running(name, out):
    out.write(f"SKIPPED: {name} is not running\n")
    return "SKIP", 77, 0.0


def wait_ready(step, background, log, limit):
    """Waits for the background step's ready file: PASS when it exists; the process's own status when
    it ends first (SKIP: no GPU or no PyTorch); TIMEOUT (the process stopped) after the limit."""
    start = time.monotonic()
    with open(log, "w") as out:
        if step.ready_of not in background:
            return not_running(step.ready_of, out)
        p, bg_log, _ = background[step.ready_of]
        out.write(f"waiting for {step.ready_file} ({step.ready_of}: {bg_log})\n")
        while not os.path.exists(step.ready_file):
            if p.poll() is not None:
                out.write(f"{step.ready_of} ended (exit {p.returncode}) before it was ready:\n")
                out.write(tail(bg_log))
                return status_of(p.returncode) if p.returncode else "FAIL", p.returncode, time.monotonic() - start
            if time.monotonic() - start > limit:
                stop(p)
                out.write(f"\nbench-gpu: not ready within {limit} s: stopped\n" + tail(bg_log))
                return "TIMEOUT", None, time.monotonic() - start
            time.sleep(0.2)
    return "PASS", 0, time.monotonic() - start


def join(step, background, log, limit):
    """Creates the go file of the background step and waits for the process to end (its status), or
    stops it after the limit (TIMEOUT)."""
    start = time.monotonic()
    with open(log, "w") as out:
        if step.joins not in background:
            return not_running(step.joins, out)
        p, bg_log, _ = background[step.joins]
        if p.poll() is None:
            open(step.go_file, "w").close()
            out.write(f"created {step.go_file}; waiting for {step.joins} ({bg_log})\n")
            try:
                p.wait(timeout=max(limit, 1))
            except subprocess.TimeoutExpired:
                stop(p)
                out.write(f"\nbench-gpu: killed after its limit of {limit} s\n" + tail(bg_log))
                return "TIMEOUT", None, time.monotonic() - start
        out.write(tail(bg_log))
        status = status_of(p.returncode)
        if status == "PASS":
            missing = [f for _, f in step.record_files if not os.path.isfile(f)]
            if missing:
                out.write(f"bench-gpu: {step.joins} wrote no {', '.join(missing)}\n")
                status = "FAIL"
    return status, p.returncode, time.monotonic() - start


def tail(log, lines=20):
    with open(log, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def summary(status, log):
    with open(log, errors="replace") as f:
        lines = [line.rstrip() for line in f if line.strip() and not line.startswith("$ ")]
    if status == "SKIP":
        return next((line for line in lines if "SKIPPED" in line), lines[-1] if lines else "")
    if status == "PASS":
        doctest = [line for line in lines if line.startswith("[doctest] test cases:")]
        return doctest[-1] if doctest else (lines[-1] if lines else "")
    failed = [line for line in lines if "FAIL" in line or "error" in line.lower()]
    return " | ".join((failed or lines)[-3:])[:600]


def last_json(log):
    with open(log, errors="replace") as f:
        for line in reversed(f.read().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    continue
    return None


def put(doc, path, value):
    for k in path[:-1]:
        doc = doc.setdefault(k, {})
    doc[path[-1]] = value


def write_results(out_dir, entry, work, manifest_path):
    """gpu-run.json and gpu-logs.tar.gz in out_dir, each replaced whole."""
    with open(os.path.join(out_dir, "gpu-run.json.partial"), "w") as f:
        json.dump(entry, f, indent=1)
    os.replace(os.path.join(out_dir, "gpu-run.json.partial"), os.path.join(out_dir, "gpu-run.json"))
    with tarfile.open(os.path.join(out_dir, "gpu-logs.tar.gz.partial"), "w:gz") as t:
        t.add(os.path.join(work, "logs"), arcname="logs")
        t.add(manifest_path, arcname="MANIFEST.json")
    os.replace(os.path.join(out_dir, "gpu-logs.tar.gz.partial"), os.path.join(out_dir, "gpu-logs.tar.gz"))


def run(stage_arg="build-gpu-stage", src="."):
    src = os.path.abspath(src)
    out_dir = os.path.abspath(os.environ.get("OUT") or "build-gpu-run")
    budget = float(os.environ.get("BENCH_DEADLINE", "360"))
    deadline = time.monotonic() + budget
    only = re.compile(os.environ.get("BENCH_ONLY", ""))
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="bench-gpu-run.")  # outside $OUT: only the two result files come back
    try:
        return run_in(stage_arg, src, out_dir, work, deadline, budget, only)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_in(stage_arg, src, out_dir, work, deadline, budget, only):
    os.makedirs(os.path.join(work, "logs"))
    tarball = os.path.join(stage_arg, "stage.tar.xz") if os.path.isdir(stage_arg) else stage_arg
    if os.path.isfile(tarball):
        stage = os.path.join(work, "stage")
        os.makedirs(stage)
        gpu_stage.extract(tarball, stage)
    else:
        stage = stage_arg
    mpath = os.path.join(stage, "MANIFEST.json")
    if not os.path.isfile(mpath):
        print(f"bench-gpu: no stage at {stage_arg} (scripts/bench-gpu stage, and carry build-gpu-stage)", file=sys.stderr)
        return 2
    with open(mpath) as f:
        manifest = json.load(f)
    changed = gpu_stage.stale_inputs(manifest, src)
    if changed:
        print(f"bench-gpu: stale stage (commit {manifest['commit']}): {', '.join(changed[:10])} changed since; "
              "run scripts/bench-gpu stage again", file=sys.stderr)
        return 2
    ctx = Context(stage, src, work, manifest)
    env = library_env(stage, work)
    dev = device_info()
    print(f"bench-gpu: stage of commit {manifest['commit']}{' (uncommitted changes)' if manifest['dirty'] else ''}, "
          f"device {dev['device']} x {dev['gpus']}, driver {dev['driver']}, CUDA {dev['cuda']}; {host_info()}", flush=True)
    entry = {"commit": manifest["commit"], "uncommitted_changes": manifest["dirty"],
             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
             "device": dev["device"], "gpus": dev["gpus"], "driver": dev["driver"], "cuda": dev["cuda"],
             "host": host_info(),
             "provenance": "scripts/bench-gpu run: this entry and gpu-logs.tar.gz (every step's output) from one device call",
             "settings": {"bench_steps": ctx.steps, "bench_size": ctx.size, "deadline_s": budget,
                          "only": only.pattern or None},
             "complete": False, "tests": [], "steps": [],
             "not_verified": (["two GPUs (NCCL)"] if dev["gpus"] < 2 else []) + ["multi-node"]}
    results = {}
    background = {}  # name -> (process, log, its open log file): the background steps still running
    try:
        run_steps(ctx, env, entry, results, background, work, out_dir, mpath, stage, deadline, budget, only)
    finally:
        for p, _, out in background.values():
            if p.poll() is None:
                stop(p)
            out.close()
    for mode, figures in entry.get("throughput", {}).items():
        ours, peer = figures.get("bert_cuda"), figures.get("pytorch")
        if ours and peer and peer.get("seq_per_s"):
            figures["ratio_seq_per_s"] = ours["seq_per_s"] / peer["seq_per_s"]
            print(f"throughput {mode}: ours {ours['seq_per_s']:.1f} seq/s (MFU {ours['mfu']:.3f}), PyTorch "
                  f"{peer['seq_per_s']:.1f} (MFU {peer['mfu']:.3f}), ratio {figures['ratio_seq_per_s']:.2f}"
                  + (f"; device memory in use {ours['device_memory_in_use_gib']:.1f} vs {peer['device_memory_in_use_gib']:.1f} GiB"
                     if "device_memory_in_use_gib" in ours and "device_memory_in_use_gib" in peer else ""))
        own = figures.get("bert_cuda_own_attention")
        if ours and own and own.get("seq_per_s"):  # which attention is faster for this mode (issue 44)
            figures["ratio_default_over_own_attention"] = ours["seq_per_s"] / own["seq_per_s"]
            print(f"throughput {mode}: attention {ours.get('attention', '?')} {ours['seq_per_s']:.1f} seq/s, our "
                  f"kernels {own['seq_per_s']:.1f}: ratio {figures['ratio_default_over_own_attention']:.2f}")
    entry["complete"] = True
    write_results(out_dir, entry, work, mpath)
    statuses = [r["status"] for r in entry["tests"] + entry["steps"]]
    print(f"bench-gpu: wrote {out_dir}/gpu-run.json and {out_dir}/gpu-logs.tar.gz "
          f"({statuses.count('PASS')} passed, {statuses.count('SKIP')} skipped, "
          f"{len(statuses) - statuses.count('PASS') - statuses.count('SKIP') - statuses.count('STARTED')} failed, "
          "timed out or not run)")
    if statuses and all(s in ("SKIP", "STARTED") for s in statuses):
        return 77
    return 0 if all(s in ("PASS", "SKIP", "STARTED") for s in statuses) else 1


def run_steps(ctx, env, entry, results, background, work, out_dir, mpath, stage, deadline, budget, only):
    """Every step of gpu_steps.steps() that BENCH_ONLY selects, in order, each row filed in the entry and
    the results rewritten after it."""
    tp = os.path.join(stage, "bench", "trainer_throughput")
    for step in gpu_steps.steps(ctx):
        if not only.search(step.name):
            continue
        log = os.path.join(work, "logs", step.name + ".log")
        cwd = os.path.join(work, "steps", step.name)
        os.makedirs(cwd, exist_ok=True)
        left = deadline - time.monotonic() - RESERVE_S
        row = {"name": step.name, "limit_s": step.limit}
        unmet = [n for n in step.needs if results.get(n) != "PASS"]
        if step.needs_any and not any(results.get(n) == "PASS" for n in step.needs_any):
            unmet.append(" or ".join(step.needs_any))
        if unmet:
            row.update(status="SKIP", detail=f"needs {', '.join(unmet)} to pass")
        elif step.unless and results.get(step.unless) == "PASS":
            row.update(status="SKIP", detail=f"{step.unless} passed")
        elif step.flag and not flag_known(tp, step.flag, env):
            row.update(status="SKIP", detail=f"trainer_throughput has no {step.flag} yet")
        elif left < 10:
            row.update(status="NOT RUN", detail=f"the run's deadline (BENCH_DEADLINE {budget:g} s) came first")
        else:
            limit = int(min(step.limit, left))
            if step.background:
                status, rc, secs = start_background(step, env, ctx.python, log, cwd, limit, background)
            elif step.ready_of:
                status, rc, secs = wait_ready(step, background, log, limit)
            elif step.joins:
                status, rc, secs = join(step, background, log, limit)
            else:
                status, rc, secs = run_commands(step, env, ctx.python, log, cwd, limit)
            detail = "running in the background" if status == "STARTED" else summary(status, log)
            row.update(status=status, seconds=round(secs, 1), limit_s=limit, detail=detail)
            if rc not in (0, 77, None):
                row["exit"] = rc
            if status == "PASS" and step.record:
                value = last_json(log)
                if value is not None:
                    put(entry, step.record, value)
            if status == "PASS":
                for path, file in step.record_files:
                    with open(file) as f:
                        put(entry, path, json.load(f))
        results[step.name] = row["status"]
        (entry["tests"] if step.test else entry["steps"]).append(row)
        secs = f"{row['seconds']:6.1f}s" if "seconds" in row else "      -"
        print(f"{row['status']:<{STATUS_WIDTH}} {secs}  {step.name:<28} {row.get('detail', '')[:160]}", flush=True)
        write_results(out_dir, entry, work, mpath)


def verification_record(entry):
    """What the build embeds for the dry-run's device status (trainer/cuda/verified.json): the run's identity,
    every GPU test's outcome and what no device run covered; the figures stay in bench/results/gpu.json."""
    return {"source": "bench/results/gpu.json: the newest device run, written by scripts/bench-gpu record",
            "commit": entry["commit"], "date": entry["date"], "device": entry["device"], "driver": entry["driver"],
            "tests": [{"name": t["name"], "status": t["status"]} for t in entry["tests"]],
            "not_verified": entry.get("not_verified", [])}


def write_json(path, value):
    with open(path + ".partial", "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
    os.replace(path + ".partial", path)


def record(entry_file, results="bench/results/gpu.json", verified="trainer/cuda/verified.json"):
    """Appends a run's gpu-run.json to bench/results/gpu.json (a device run only) and writes its verification
    record (trainer/cuda/verified.json, what the dry-run's device status is made from)."""
    with open(entry_file) as f:
        entry = json.load(f)
    missing = [k for k in ("commit", "date", "device", "driver", "tests") if k not in entry]
    if missing:
        print(f"bench-gpu: {entry_file}: not a run entry (no {', '.join(missing)})", file=sys.stderr)
        return 2
    if entry["device"] == "none" or all(t["status"] == "SKIP" for t in entry["tests"]):
        print(f"bench-gpu: {entry_file}: every test skipped (no device): nothing to record", file=sys.stderr)
        return 2
    with open(results) as f:
        runs = json.load(f)
    runs.append(entry)
    write_json(results, runs)
    write_json(verified, verification_record(entry))
    print(f"bench-gpu: {results}: recorded the run of commit {entry['commit']} on {entry['device']} ({len(runs)} runs); "
          f"{verified} rewritten (the dry-run's device status: BERT_UPDATE_GOLDEN=1 ctest -R "
          "'harness_dryrun_|harness_gpu_status_docs' brings the goldens and docs up to date)")
    return 0
