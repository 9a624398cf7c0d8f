"""Randomized differential test: random line-level mutants of writer-made logs (deleted, repeated,
swapped or truncated lines; values, keys, metadata and time_ms replaced by awkward JSON), checked by
the official compliance checker and by ours; every verdict must agree (see compare_checker.agree).
Deterministic for a given seed. Usage: diff_mutants.py RESULTS_CLI MAKE_LOG WORKDIR COUNT SEED"""
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
import compare_checker as cc  # noqa: E402
import corpus  # noqa: E402

VALUES = [None, "", "x", 0, -1, 1.5, True, False, [], {}, "0.73", float("nan"), float("inf"), 0.72, 1.0,
          "closed", "open", "bert", "12", [1], {"epoch_num": 1}, "epoch_num"]
KEYS = ["run_start", "run_stop", "init_start", "init_stop", "submission_division", "submission_benchmark",
        "eval_accuracy", "block_start", "block_stop", "epoch_start", "epoch_stop", "eval_start", "eval_stop",
        "train_samples", "eval_samples", "cache_clear", "global_batch_size", "gradient_accumulation_steps",
        "submission_org", "submission_status", "submission_platform", "opt_lamb_epsilon"]
METADATA_KEYS = ["epoch_num", "samples_count", "step_num", "epoch_count", "first_epoch_num", "status", "file"]


def mutate(rng, lines):
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        try:
            o = corpus.payload(lines[i])
        except ValueError:
            continue
        if not isinstance(o, dict):
            continue
        op = rng.randrange(8)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            o["value"] = rng.choice(VALUES)
        elif op == 4:
            o["key"] = rng.choice(KEYS)
        elif op == 5:
            md = o["metadata"]
            if rng.random() < 0.2:
                o["metadata"] = rng.choice(VALUES)
            elif isinstance(md, dict):
                k = rng.choice(METADATA_KEYS)
                if k in md and rng.random() < 0.5:
                    del md[k]
                else:
                    md[k] = rng.choice(VALUES)
        elif op == 6:
            o["time_ms"] = rng.choice([o["time_ms"] + rng.randint(-4000000, 4000000), str(o["time_ms"]), "nan", 0])
        else:
            lines[i] = lines[i][:rng.randrange(len(lines[i]))]
        if 3 <= op <= 6:
            lines[i] = corpus.emit(o)
    return lines


def main():
    cli, make_log, work, count, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = random.Random(seed)
    bases = {(rs, d): corpus.base_log(make_log, rs, d) for rs in corpus.RULESETS for d in corpus.DIVISIONS}
    keys = sorted(bases)
    stats, bad = {"pass": 0, "fail": 0, "crash": 0}, 0
    for n in range(count):
        rs, div = rng.choice(keys)
        path = os.path.join(work, f"mutant_{n}_{rs}_{div}.txt")
        with open(path, "w", encoding="latin-1") as f:
            f.write("\n".join(mutate(rng, bases[(rs, div)])) + "\n")
        off, our = cc.official(path, rs), cc.ours(cli, path, rs)
        stats["crash" if "crash" in off else "pass" if off["passed"] else "fail"] += 1
        if cc.agree(off, our):
            os.remove(path)
        else:
            bad += 1
            print(f"MISMATCH {path} ({rs})\n  official: {off}\n  ours:     {our}")
    print(f"{count} mutants (seed {seed}): official pass {stats['pass']}, fail {stats['fail']}, "
          f"crash {stats['crash']}; {bad} verdicts differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
