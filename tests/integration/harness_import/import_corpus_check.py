#!/usr/bin/env python3
"""import_corpus.sh's judge of one import: does the dry-run plan (harness run OUT --dry-run --json) run what
the config says? Nodes, GPUs per node, the batch per GPU per optimizer step and the learning rate, from what
bash exported after sourcing the config (NUL-separated env), in NVIDIA's or Samsung's variable names; an
EXTRA_PARAMS flag that overrides a variable (the import table says so) counts as the config's value.
Usage: import_corpus_check.py BASH_ENV PLAN_JSON TABLE. Prints what disagrees; exit 1 then."""
import json
import sys


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    raw = open(sys.argv[1], "rb").read().decode(errors="replace")
    bash = dict(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)
    plan = json.load(open(sys.argv[2]))
    table = open(sys.argv[3]).read()
    tc = plan["trainer_config"]
    ga = int(tc["batch"]["gradient_accumulation_steps"])
    external = plan["trainer_run"]["kind"] == "external"
    overridden = {line.split("=", 1)[0].strip() for line in table.splitlines() if "(overridden:" in line}
    checks = [
        ("DGXNNODES", plan["num_nodes"]),
        ("DGXNGPU", plan["ranks_per_node"]),
        ("BATCHSIZE", tc["batch"]["batch_size"] * (ga if external and "GRADIENT_STEPS" in bash else 1)),
        ("GRADIENT_STEPS", ga),
        ("GRAD_STEPS", ga),
        ("LR", tc["optimizer"]["learning_rate"]),
    ]
    bad = []
    for var, got in checks:
        if var not in bash or var in overridden or bash[var] == "":
            continue
        want = number(bash[var])
        if want is None or abs(want - float(got)) > 1e-12 * max(1.0, abs(want)):
            bad.append(f"{var}={bash[var]} but the plan has {got}")
    if bad:
        print("plan disagrees: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
