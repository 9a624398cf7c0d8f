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
    (e.g. ("throughput", "packed", "bert_cuda")), and with `test=True` counts as a GPU test there.
Placeholders in commands: ctx.stage (the unpacked stage), ctx.src (this tree), ctx.python, ctx.work
(the run's work dir, shared by all steps), ctx.steps / ctx.size (BENCH_STEPS / BENCH_SIZE).

Sizing (one H100; the device rule leaves ~6 minutes to a call, BENCH_DEADLINE's default): the GPU tests
first (what settles a change), about 2-3 minutes together, cuda_model and trainer_cuda_backend_step the
longest (their CPU references: 51 s and 40 s in the first device run, before gpu_main.cpp pinned the
BLAS threads); then the benchmarks, BERT-Large with BENCH_STEPS=20 timed steps after 5 warm-up as the
recorded runs (our two modes take seconds each; the PyTorch peer's torch.compile most of its step's
limit). Steps the deadline cuts are NOT RUN; a second call with BENCH_ONLY='throughput|pytorch' (say) runs those.
"""
from dataclasses import dataclass, field

# Limits of the GPU tests, by ctest name; any other GPU test gets DEFAULT_TEST_LIMIT.
DEFAULT_TEST_LIMIT = 60
TEST_LIMITS = {
    "cuda_model": 120,
    "cuda_fp8_model": 120,  # 1,000 steps of tiny and of base BERT besides the step checks
    "cuda_convergence": 90,  # the goal is under 60 s; its time is in the results table
    "trainer_cuda_backend_step": 120,
    "trainer_cuda_local_recipe": 90,
    "harness_cuda_local": 150,
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


def steps(ctx):
    out = []
    for t in ctx.manifest["tests"]:  # every ctest `gpu` test the stage holds, in ctest's order
        env = dict(e.split("=", 1) for e in t.get("env", []))
        out.append(Step(t["name"], TEST_LIMITS.get(t["name"], DEFAULT_TEST_LIMIT), [ctx.expand(t["argv"])], test=True,
                        env=env))
    tp = f"{ctx.stage}/bench/trainer_throughput"
    timed = ["--size", ctx.size, "--steps", str(ctx.steps)]
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
    # The PyTorch peers last (torch.compile takes most of each one's minutes); padded first: the ratio
    # no run has measured yet.
    for mode in ("padded", "packed"):
        batches = f"{ctx.work}/{mode}_batches.json"
        out.append(Step(f"pytorch_{mode}", 180, [[tp, "--mode", mode, "--size", ctx.size, "--dump-batches", batches],
                                                 [ctx.python, f"{ctx.src}/bench/peers/hf_bert.py", "--batches", batches,
                                                  *timed]],
                        needs_any=[f"throughput_{mode}", f"throughput_{mode}_unprofiled"],
                        record=("throughput", mode, "pytorch")))
    return out
