"""The stage of scripts/bench-gpu: everything a GPU machine with no project dependencies, no network and
no Slurm needs to run every GPU test, the local recipe through `harness run` and the benchmarks, packed
into one tarball, and the checks that make a stale or incomplete stage fail here rather than on the
device.

Layout of the stage (build-gpu-stage/stage.tar.xz):
  prefix/         `cmake --install` (components tools + cuda): bin/harness, bind, trainer, trainer-cuda,
                  bert-data; share/bert-harness/systems, rules, ... (what an installed harness reads)
  tests/          every binary a ctest `gpu` test runs, and the CPU references computed here
                  (CPU_REFERENCES: cuda_convergence_cpu.json)
  bench/          trainer_throughput
  lib/            the non-CUDA shared libraries of all of these (the device uses those it lacks)
  python/         the official checker (mlperf_logging, pure Python) for the tests' compliance checks
  MANIFEST.json   commit, the GPU tests (name, argv with {stage} {src} {python} placeholders, skip code),
                  the CUDA binaries, and a hash of every build input (tracked sources) to detect staleness
"""
import datetime
import fnmatch
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

TOOLS = ["harness", "bind", "trainer", "trainer-cuda", "bert-data"]
BENCH = ["trainer_throughput"]
ARCH = "sm_90a"  # the H100/H200 code the device runs
# Tracked files the staged binaries and files are made from (a change makes a stage stale); the GPU
# scripts and bench/peers run from the working tree itself on the device, and the unit and integration
# tests and the other benchmarks are not staged.
BUILD_INPUTS = ["*.cpp", "*.h", "*.cu", "*.cuh", "*.in", "CMakeLists.txt", "*.cmake", "results/rules/*",
                "systems/*.yaml", "systems/*.xml", "trainer/cuda/verified.json"]
# GPU tests whose CPU reference a program of the build computes at staging, into tests/<test>_cpu.json
# beside the test binary (where the test looks for it).
CPU_REFERENCES = {"cuda_convergence": "cuda_convergence_cpu_reference"}
NOT_STAGED = ["tests/unit/*", "tests/integration/*", "bench/cpu_*", "bench/data_prep/*", "*.md"]
# Shared libraries the device image provides itself: the C/C++ runtimes and the CUDA libraries.
SYSTEM_LIBS = ("libc.so", "libm.so", "libdl.so", "librt.so", "libpthread.so", "libresolv.so", "libutil.so",
               "libstdc++.so", "libgcc_s.so", "ld-linux", "libcu", "libnccl", "libnv")


class StageError(Exception):
    pass


def _run(argv, **kw):
    return subprocess.run(argv, check=True, text=True, **kw)


def _out(argv, **kw):
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kw).stdout


def build_inputs(src):
    files = _out(["git", "-C", src, "ls-files", "-z"]).split("\0")
    def matches(f, patterns):
        return any(fnmatch.fnmatch(f, p) or fnmatch.fnmatch(os.path.basename(f), p) for p in patterns)
    return sorted(f for f in files if f and matches(f, BUILD_INPUTS) and not matches(f, NOT_STAGED))


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def stale_inputs(manifest, src):
    """Build inputs whose content differs from what was staged (or that are gone)."""
    changed = []
    for rel, digest in manifest["build_inputs"].items():
        path = os.path.join(src, rel)
        if not os.path.isfile(path) or file_hash(path) != digest:
            changed.append(rel)
    return changed


def gpu_tests(build):
    """The ctest tests labelled gpu: name, argv, skip return code."""
    doc = json.loads(_out(["ctest", "--test-dir", build, "-L", "gpu", "--show-only=json-v1"]))
    tests = []
    for t in doc.get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append({"name": t["name"], "argv": t["command"], "skip_code": props.get("SKIP_RETURN_CODE"),
                      "env": props.get("ENVIRONMENT", [])})
    if not tests:
        raise StageError(f"ctest lists no gpu-labelled test in {build}: configured without CUDA (nvcc)?")
    return tests


def cmake_cache(build, key):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return ""


def template_argv(argv, build, src, python):
    """A ctest command with the build machine's paths turned into placeholders for the device."""
    build, src = os.path.realpath(build), os.path.realpath(src)
    out = []
    for a in argv:
        real = os.path.realpath(a) if os.path.isabs(a) else None
        name = os.path.basename(a)
        if a == python:
            out.append("{python}")
        elif real and os.path.dirname(real) == build and name in TOOLS:
            out.append("{stage}/prefix/bin/" + name)
        elif real and os.path.dirname(real) == build and name in BENCH:
            out.append("{stage}/bench/" + name)
        elif real and real.startswith(build + "/"):
            out.append("{stage}/tests/" + name)
        elif real and real.startswith(os.path.join(src, "systems") + "/"):  # the installed copy
            out.append("{stage}/prefix/share/bert-harness/systems/" + os.path.relpath(real, os.path.join(src, "systems")))
        elif real and real.startswith(src + "/"):
            out.append("{src}/" + os.path.relpath(real, src))
        elif a in ("/bin/bash", "/usr/bin/bash", "bash"):
            out.append("bash")
        elif real:
            raise StageError(f"a GPU test runs {a}, which is neither in the build, the source tree nor the stage")
        else:
            out.append(a)
    return out


def cuobjdump():
    """cuobjdump: $CUOBJDUMP, PATH, the CUDA toolkit, or PyPI's nvidia-cuda-cuobjdump in .venv."""
    cands = [os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"]
    cands += sorted(glob.glob(".venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump"))
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    raise StageError("cuobjdump not found (scripts/setup --test installs PyPI's nvidia-cuda-cuobjdump into .venv; "
                     "or set CUOBJDUMP)")


def cubins(tool, binary):
    r = subprocess.run([tool, "--list-elf", binary], text=True, capture_output=True)
    return [line.split(":", 1)[1].strip() for line in r.stdout.splitlines() if line.startswith("ELF file")]


def verify(stage, src=".", check_fresh=True):
    """Every problem of an unpacked stage, as sentences; empty when it is complete and current."""
    problems = []
    mpath = os.path.join(stage, "MANIFEST.json")
    if not os.path.isfile(mpath):
        return [f"{stage}: no MANIFEST.json (not a stage: run scripts/bench-gpu stage)"]
    with open(mpath) as f:
        manifest = json.load(f)
    for name in TOOLS:
        if not os.access(os.path.join(stage, "prefix/bin", name), os.X_OK):
            problems.append(f"prefix/bin/{name} missing")
    for name in BENCH:
        if not os.access(os.path.join(stage, "bench", name), os.X_OK):
            problems.append(f"bench/{name} missing")
    for t in manifest["tests"]:
        for a in t["argv"]:
            if a.startswith("{stage}/") and not os.path.exists(os.path.join(stage, a[len("{stage}/"):])):
                problems.append(f"GPU test {t['name']}: {a[len('{stage}/'):]} missing")
            if a.startswith("{src}/") and not os.path.exists(os.path.join(src, a[len("{src}/"):])):
                problems.append(f"GPU test {t['name']}: {a[len('{src}/'):]} missing from the source tree")
    if not os.path.isdir(os.path.join(stage, "python", "mlperf_logging")):
        problems.append("python/mlperf_logging missing (the official checker the GPU tests run)")
    tool = cuobjdump()
    for rel in manifest["cuda_binaries"]:
        path = os.path.join(stage, rel)
        if not os.path.exists(path):
            continue  # reported above
        elfs = cubins(tool, path)
        # A test whose device work is all cuBLASLt's (cuda_fp8_gemm) carries no kernels of its own; one
        # built for other architectures carries theirs and no sm_90a.
        if not elfs and rel.startswith("tests/"):
            continue
        if not any(e.endswith(f".{ARCH}.cubin") for e in elfs):
            problems.append(f"{rel} has no {ARCH} code (cubins: {', '.join(elfs) or 'none'})")
    if check_fresh:
        changed = stale_inputs(manifest, src)
        if changed:
            more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
            problems.append(f"stale: {', '.join(changed[:5])}{more} changed since staging (scripts/bench-gpu stage)")
    return problems


def extract(tarball, dest):
    with tarfile.open(tarball) as t:
        if hasattr(tarfile, "fully_trusted_filter"):  # Python >= 3.12: our own tarball, as packed
            t.extractall(dest, filter="fully_trusted")
        else:
            t.extractall(dest)


def unpack(tarball):
    d = tempfile.mkdtemp(prefix="bench-gpu-stage.")
    extract(tarball, d)
    return d


def shared_libs(binaries):
    libs = set()
    for b in binaries:
        for line in _out(["ldd", b]).splitlines():
            parts = line.split("=>")
            if len(parts) == 2 and parts[1].strip().startswith("/"):
                lib = parts[1].split()[0]
                if not any(os.path.basename(lib).startswith(s) for s in SYSTEM_LIBS):
                    libs.add(lib)
    return sorted(libs)


def git_state(src):
    try:
        commit = _out(["git", "-C", src, "rev-parse", "--short=7", "HEAD"]).strip()
        dirty = bool(_out(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"]).strip())
    except (subprocess.CalledProcessError, FileNotFoundError):
        return "unknown", True
    return commit, dirty


def stage(build="build", dest="build-gpu-stage", src="."):
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        raise StageError(f"{build} is not a configured build dir (run scripts/setup)")
    python = cmake_cache(build, "BERT_TEST_PYTHON")
    tests = gpu_tests(build)
    targets = set(TOOLS) | set(BENCH) | set(CPU_REFERENCES.values())
    for t in tests:
        for a in t["argv"]:
            if os.path.isabs(a) and os.path.realpath(a).startswith(os.path.realpath(build) + "/"):
                targets.add(os.path.basename(a))
    _run(["cmake", "--build", build, "--target", *sorted(targets), "-j", str(os.cpu_count() or 2)])
    tmp = tempfile.mkdtemp(prefix="bench-gpu-pack.")
    try:
        for component in ("tools", "cuda"):
            _run(["cmake", "--install", build, "--prefix", os.path.join(tmp, "prefix"), "--component", component],
                 stdout=subprocess.DEVNULL)
        os.makedirs(os.path.join(tmp, "tests"))
        os.makedirs(os.path.join(tmp, "bench"))
        manifest_tests, cuda_binaries = [], ["prefix/bin/trainer-cuda", "bench/trainer_throughput"]
        for name in BENCH:
            shutil.copy2(os.path.join(build, name), os.path.join(tmp, "bench", name))
        for t in tests:
            argv = template_argv(t["argv"], build, src, python)
            for a, templ in zip(t["argv"], argv):
                if templ.startswith("{stage}/tests/"):
                    shutil.copy2(a, os.path.join(tmp, "tests", os.path.basename(a)))
                    cuda_binaries.append("tests/" + os.path.basename(a))
            manifest_tests.append({"name": t["name"], "argv": argv, "skip_code": t["skip_code"], "env": t["env"]})
            if t["name"] in CPU_REFERENCES:  # the test's CPU half, computed here: no device seconds spent on it
                _run([os.path.join(build, CPU_REFERENCES[t["name"]]),
                      os.path.join(tmp, "tests", t["name"] + "_cpu.json")])
        elfs = [os.path.join(tmp, "prefix/bin", n) for n in TOOLS] + [os.path.join(tmp, "bench", n) for n in BENCH]
        elfs += [os.path.join(tmp, b) for b in cuda_binaries if b.startswith("tests/")]
        os.makedirs(os.path.join(tmp, "lib"))
        for lib in shared_libs(elfs):
            shutil.copy2(lib, os.path.join(tmp, "lib", os.path.basename(lib)))
        checker = _out([python, "-c", "import mlperf_logging, os; print(os.path.dirname(mlperf_logging.__file__))"]).strip()
        shutil.copytree(checker, os.path.join(tmp, "python", "mlperf_logging"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        commit, dirty = git_state(src)
        manifest = {
            "commit": commit, "dirty": dirty,
            "staged": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
            "cuda_architectures": cmake_cache(build, "CMAKE_CUDA_ARCHITECTURES"),
            "tests": manifest_tests, "cuda_binaries": sorted(set(cuda_binaries)),
            "build_inputs": {f: file_hash(os.path.join(src, f)) for f in build_inputs(src)},
        }
        with open(os.path.join(tmp, "MANIFEST.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        os.makedirs(dest, exist_ok=True)
        tarball = os.path.join(dest, "stage.tar.xz")
        partial = tarball + ".partial"
        with tarfile.open(partial, "w:xz") as t:
            t.add(tmp, arcname=".")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # What was packed, as the device will see it.
    unpacked = unpack(partial)
    try:
        problems = verify(unpacked, src)
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
    if problems:
        os.remove(partial)
        raise StageError("the stage is incomplete:\n  " + "\n  ".join(problems))
    os.replace(partial, tarball)
    size = os.path.getsize(tarball) / 2**20
    print(f"bench-gpu: staged {tarball} ({size:.1f} MiB): commit {commit}{' (uncommitted changes)' if dirty else ''}, "
          f"{len(manifest_tests)} GPU tests, {ARCH} code in {len(manifest['cuda_binaries'])} binaries")
    return tarball


def verify_command(path, src="."):
    """scripts/bench-gpu verify [STAGE]: a tarball or an unpacked stage directory."""
    unpacked = unpack(path) if os.path.isfile(path) else None
    try:
        problems = verify(unpacked or path, src)
    finally:
        if unpacked:
            shutil.rmtree(unpacked, ignore_errors=True)
    for p in problems:
        print(f"bench-gpu: {p}", file=sys.stderr)
    if not problems:
        print(f"bench-gpu: {path}: complete and current")
    return 1 if problems else 0
