#!/usr/bin/env python3
"""Compares, variable by variable, what bash exported after sourcing a config with the plan the imported
YAML gives (harness run OUT --dry-run --json) and the import table. Usage:
import_compare.py BASH_ENV_NUL_FILE PLAN_JSON TABLE_FILE"""
import json
import sys

SHELL = {"PWD", "OLDPWD", "SHLVL", "_", "PATH", "HOME"}


def main():
    raw = open(sys.argv[1], "rb").read().decode()
    bash = dict(kv.split("=", 1) for kv in raw.split("\0") if "=" in kv)
    plan = json.load(open(sys.argv[2]))
    table = open(sys.argv[3]).read()
    tc = plan["trainer_config"]
    tenv = plan["trainer"]["env"]
    launch = " ".join(plan["launch"]["argv"])
    mounts = next((w.split("=", 1)[1].split(",") for w in plan["launch"]["argv"] if w.startswith("--container-mounts=")), [])
    external = plan["trainer_run"]["kind"] == "external"
    ga = int(tc["batch"]["gradient_accumulation_steps"])
    # the plan's value of each known variable (NVIDIA's and Samsung's names)
    known = {
        "DGXNNODES": str(plan["num_nodes"]),
        "DGXNGPU": str(plan["ranks_per_node"]),
        "DGXSYSTEM": plan["config_name"],
        "NEXP": str(plan["experiment"]["nexp"]),
        "BATCHSIZE": str(tc["batch"]["batch_size"] * (ga if external else 1)),
        "GRADIENT_STEPS": str(ga), "GRAD_STEPS": str(ga),
        "LR": tc["optimizer"]["learning_rate"], "MAX_STEPS": str(tc["optimizer"]["max_steps"]),
        "MAX_SAMPLES_TERMINATION": str(tc["stopping"]["max_samples"]),
        "OPT_LAMB_BETA_1": tc["optimizer"]["lamb_beta_1"], "OPT_LAMB_BETA_2": tc["optimizer"]["lamb_beta_2"],
        "EPSILON": tc["optimizer"]["lamb_epsilon"],
        "WEIGHT_DECAY_RATE": tc["optimizer"]["weight_decay_rate"],
        "WARMUP_PROPORTION": tc["optimizer"]["warmup_proportion"], "WARMUP_STEPS": str(tc["optimizer"]["warmup_steps"]),
        "START_WARMUP_STEP": str(tc["optimizer"]["start_warmup_step"]), "START_STEPS": str(tc["optimizer"]["start_warmup_step"]),
        "EVAL_ITER_START_SAMPLES": str(tc["stopping"]["eval_start_samples"]), "EVAL_START": str(tc["stopping"]["eval_start_samples"]),
        "EVAL_ITER_SAMPLES": str(tc["stopping"]["eval_interval_samples"]), "EVAL_ITER": str(tc["stopping"]["eval_interval_samples"]),
        "TARGET_MLM_ACCURACY": tc["stopping"]["target_accuracy"],
        "PACKING_FACTOR": tc["batch"]["average_packing_rate"],
    }
    # the job's walltime: experiment.walltime, or job_walltime once the per-run/per-job keys exist (issue 14)
    ex = plan["experiment"]
    job_wall = {str(ex.get(k)) for k in ("walltime", "job_walltime") if ex.get(k) not in (None, "")}
    run_wall = {str(ex.get("run_walltime"))} if ex.get("run_walltime") not in (None, "") else set()
    # the import table: variable -> (section, target)
    rows, section = {}, ""
    for line in table.splitlines():
        if not line.startswith(" "):
            section = line.split()[0] if line.strip() else section
        elif "->" in line:
            rows[line.split("=", 1)[0].strip()] = (section, line.split("->", 1)[1].strip())  # "EXTRA_PARAMS --flag" too
    topo = plan["nodes"][0]["topology"]
    bad, checked = [], 0
    for k, v in sorted(bash.items()):
        if k in SHELL:
            continue
        checked += 1
        if k in known:
            want = known[k]
            same = float(v) == float(want) if isinstance(want, float) else v == want
            if not same:
                bad.append(f"{k}: bash {v!r}, plan {want!r}")
            # an external trainer also gets the variable itself, as bash had it
            if external and k in tenv and k not in ("NEXP",) and tenv[k] != v:
                bad.append(f"{k}: bash {v!r}, trainer env {tenv[k]!r}")
        elif k == "WALLTIME":
            # the job's limit; or one run's (v1.x, it does not follow NEXP); or derived by the harness when it
            # follows NEXP beside a per-run variable
            derived = rows.get("WALLTIME", ("", ""))[0] == "ignored" and "follows NEXP" in rows["WALLTIME"][1]
            if v not in job_wall and v not in run_wall and not derived:
                bad.append(f"WALLTIME: bash {v!r}, plan {sorted(job_wall)}")
        elif k in ("WALLTIME_MINUTES", "WALLTIME_RUNANDTIME"):
            if f"--time={v}" not in launch and v not in run_wall:
                bad.append(f"{k}={v}: neither --time={v} in the launch line nor run_walltime {sorted(run_wall)}")
        elif k in ("DATADIR_PHASE2", "EVALDIR", "CHECKPOINTDIR_PHASE1"):
            if v and not any(m.startswith(v + ":") for m in mounts):
                bad.append(f"{k}={v}: not mounted ({mounts})")
        elif k in ("CONT_FILE",) or (k == "CONT" and "CONT_FILE" not in bash):
            if plan["container"]["image"] != v:
                bad.append(f"{k}: bash {v!r}, container {plan['container']['image']!r}")
        elif k == "LOGDIR":
            if plan["experiment"]["output_dir"] != v:
                bad.append(f"LOGDIR: bash {v!r}, output_dir {plan['experiment']['output_dir']!r}")
        elif k == "SLURM_MPI_TYPE":
            if plan["mpi"] != v:
                bad.append(f"SLURM_MPI_TYPE: bash {v!r}, plan --mpi={plan['mpi']}")
        elif k.startswith("NCCL_"):
            if plan["env"].get(k) != v:
                bad.append(f"{k}: bash {v!r}, job env {plan['env'].get(k)!r}")
        elif k in tenv:
            if tenv[k] != v:
                bad.append(f"{k}: bash {v!r}, trainer env {tenv[k]!r}")
        elif k in ("DGXNSOCKET", "DGXSOCKETCORES", "DGXHT") and rows.get(k, ("", ""))[0] == "mapped":
            n, c, t = (int(bash.get(x, "1")) for x in ("DGXNSOCKET", "DGXSOCKETCORES", "DGXHT"))
            if (topo["packages"], topo["cores"], topo["pus"]) != (n, n * c, n * c * t):
                bad.append(f"{k}={v}: topology {topo['packages']} packages, {topo['cores']} cores, {topo['pus']} PUs")
        elif rows.get(k, ("", ""))[0] != "ignored":  # not in the plan: the table must say it is ignored and why
            bad.append(f"{k}={v!r}: not in the plan and not ignored in the import table ({rows.get(k)})")
    for b in bad:
        print("MISMATCH " + b)
    print(f"{checked} variables compared, {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
