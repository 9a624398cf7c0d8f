"""The steps of `scripts/bench-gpu run`, in the order they run: one row each, with its own time limit.

To add a step, add a Step to steps() below. A step
  - runs `commands` (argv lists, one after the other, in its own scratch directory, all within `limit`
    seconds; the whole run also stops starting steps near its deadline); our binaries with the staged
    libraries, a command of ctx.python (the PyTorch peer) in the machine's own environment;
  - PASSes on exit 0, SKIPs on exit 77 (its reason: the output's "SKIPPED: ..." line), FAILs otherwise,
    and is a TIMEOUT when its limit kills it; the run goes on past any of them;
  - is skipped before it starts when a step it `needs` did not pass (or none of `needs_any` did), when
    the step named by `unless` passed (a fallback), or when trainer_throughput does not know the `flag`
    it needs yet (`--help` does not mention it);
  - with `record`, files its stdout's last JSON object in the results entry at that path
    (e.g. ("throughput", "packed", "bert_cuda")), and with `test=True` counts as a GPU test there;
  - with `background`, leaves its last command running (STARTED) once the others passed; a later step
    `ready_of` it waits until its `ready_file` exists (PASS; SKIP or FAIL when the process ends first),
    and a step `joins` it creates its `go_file`, waits for it to end and files each (`record` path, JSON
    file) of `record_files`. A background process still running at the end of the run is stopped.
Placeholders in commands: ctx.stage (the unpacked stage), ctx.src (this tree), ctx.python, ctx.work
(the run's work dir, shared by all steps), ctx.steps / ctx.size (BENCH_STEPS / BENCH_SIZE).

Sizing (one H100/H200; 15 minutes of device time a session, ~2 of them the machine's start, so a call of
~6.5 minutes leaves room to run it again: BENCH_DEADLINE's default 360 s): the PyTorch
peer starts compiling first, in the background (torch.compile of both modes' shapes: minutes of CPU,
then one GPU step a mode; 167 s for the padded mode alone, compile and timing, in the f6fa687 run); the
GPU tests meanwhile (what settles a change: 105 s in the f6fa687 run, 40 s of it cuda_convergence's CPU
half, now computed at staging); then a wait until the peer is compiled and idle, so that none of its GPU
work overlaps our timed runs; our benchmarks (BERT-Large, BENCH_STEPS=20 timed steps after 5 warm-up,
with the profile: ~20 s a mode, ~30 s FP8); the peer's timed steps (~10 s a mode); last our two modes
with our own attention kernels instead of cuDNN's (~12 s each), the first the deadline cuts. Steps the
deadline cuts are NOT RUN; a second call with BENCH_ONLY='own_attention|pytorch' (say) runs those. The
peer's compile (~250 s, the GPU tests beside it) sets the length of a whole call.
"""
from dataclasses import dataclass, field

# Limits of the GPU tests, by ctest name; any other GPU test gets DEFAULT_TEST_LIMIT.
DEFAULT_TEST_LIMIT = 60
TEST_LIMITS = {
    "cuda_model": 120,
    "cuda_fp8_model": 120,  # 1,000 steps of tiny and of base BERT besides the step checks
    "cuda_convergence": 90,  # its CPU half comes from the stage; the time is in the results table
    "trainer_cuda_backend_step": 120,
    "trainer_cuda_local_recipe": 90,
    "harness_cuda_local": 150,
    "trainer_cuda_two_ranks": 90,  # three trainer-cuda runs; two ranks share the GPU through the host collective
    "cuda_cudnn_attention": 90,  # a cuDNN graph built per shape (about a dozen)
}


@dataclass
class Step:
    name: str
    limit: int
    commands: list
    test: bool = False
    needs: list = field(default_factory=list)
    needs_any: list = field(default_factory=list)
    unless: str = ""
    flag: str = ""
    record: tuple = ()
    env: dict = field(default_factory=dict)
    background: bool = False
    ready_of: str = ""
    ready_file: str = ""
    joins: str = ""
    go_file: str = ""
    record_files: list = field(default_factory=list)


def steps(ctx):
    tp = f"{ctx.stage}/bench/trainer_throughput"
    timed = ["--size", ctx.size, "--steps", str(ctx.steps)]
    peer = f"{ctx.work}/peer"  # the peer's batches, its ready / go files and its results
    out = []
    # Issue 35's peer: PyTorch on the same batches (bench/peers/hf_bert.py), both modes in one process,
    # compiled while the GPU tests run.
    out.append(Step("pytorch_compile", 30,
                    [["mkdir", "-p", peer],
                     *[[tp, "--mode", mode, "--size", ctx.size, "--dump-batches", f"{peer}/{mode}_batches.json"]
                       for mode in ("padded", "packed")],
                     [ctx.python, f"{ctx.src}/bench/peers/hf_bert.py", "--batches", f"{peer}/padded_batches.json",
                      "--batches", f"{peer}/packed_batches.json", *timed, "--ready-file", f"{peer}/ready",
                      "--go-file", f"{peer}/go", "--out-dir", peer]],
                    background=True))
    for t in ctx.manifest["tests"]:  # every ctest `gpu` test the stage holds, in ctest's order
        env = dict(e.split("=", 1) for e in t.get("env", []))
        out.append(Step(t["name"], TEST_LIMITS.get(t["name"], DEFAULT_TEST_LIMIT), [ctx.expand(t["argv"])], test=True,
                        env=env))
    out.append(Step("pytorch_ready", 300, [], ready_of="pytorch_compile", ready_file=f"{peer}/ready"))
    # Our throughput, per mode, with the profile (issue 35: each op class's time per step against its floor;
    # the table on stderr, in the log; "profile" inside the entry): the profile's steps come after the timed
    # ones, so the timed figures are those of a plain run. Where the profile fails, a plain run instead.
    for mode in ("packed", "padded"):
        out.append(Step(f"throughput_{mode}", 90, [[tp, "--mode", mode, *timed, "--profile"]], flag="--profile",
                        record=("throughput", mode, "bert_cuda")))
        out.append(Step(f"throughput_{mode}_unprofiled", 90, [[tp, "--mode", mode, *timed]],
                        unless=f"throughput_{mode}", record=("throughput", mode, "bert_cuda")))
    # Issue 36: FP8 against our bf16, in the same process, with the FP8 step's profile (the casts timed apart
    # from their GEMMs: fp8_cast.fwd / .bwd, fp8_weights); a plain run where the profile fails.
    out.append(Step("fp8_packed", 120, [[tp, "--mode", "packed", *timed, "--precision", "fp8", "--profile"]],
                    flag="--precision", record=("throughput", "packed", "bert_cuda_fp8")))
    out.append(Step("fp8_packed_unprofiled", 120, [[tp, "--mode", "packed", *timed, "--precision", "fp8"]],
                    flag="--precision", unless="fp8_packed", record=("throughput", "packed", "bert_cuda_fp8")))
    out.append(Step("pytorch_timed", 120, [], joins="pytorch_compile", go_file=f"{peer}/go",
                    record_files=[(("throughput", mode, "pytorch"), f"{peer}/{mode}.json") for mode in ("padded", "packed")]))
    # Issue 44: attention through our kernels instead of cuDNN's (the default where built), timed without the
    # profile: which is faster for each mode (BERT_CUDA_ATTENTION, trainer/cuda/attention_choice.h). Last: the
    # deadline cuts these first.
    for mode in ("packed", "padded"):
        out.append(Step(f"throughput_{mode}_own_attention", 60, [[tp, "--mode", mode, *timed]],
                        env={"BERT_CUDA_ATTENTION": "own"}, record=("throughput", mode, "bert_cuda_own_attention")))
    return out
