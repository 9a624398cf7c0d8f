#!/usr/bin/env python3
"""A stand-in for NVIDIA's BERT (run_pretraining.py) as `harness probe` reads it: MLLOG lines shaped like
NVIDIA's mlperf_logger output, with times set so the throughput is known exactly:
init 60 s; tracked_stats {"seq/sec": ..., "step_loss", "avg_loss", "lr"} with metadata step [epoch, steps]
(not a sample count) plus the `throughput` key, every 100 steps: 1200 seq/s for the first (warm-up), then
2000; two evaluations of 5 s; run_stop aborted. Usage: fake_nvidia_trainer.py [INTERVALS]"""
import json
import sys

intervals = int(sys.argv[1]) if len(sys.argv) > 1 else 8
t = 1700000000000


def log(event_type, key, value, **meta):
    meta = {"file": "/workspace/bert/run_pretraining.py", "lineno": 1994, **meta}
    print(":::MLLOG " + json.dumps({"namespace": "", "time_ms": t, "event_type": event_type, "key": key,
                                    "value": value, "metadata": meta}), flush=True)


log("INTERVAL_START", "init_start", None)
log("POINT_IN_TIME", "submission_benchmark", "bert")
log("POINT_IN_TIME", "global_batch_size", 448)
t += 60000
log("INTERVAL_END", "init_stop", None)
log("INTERVAL_START", "run_start", None)
samples = 0
for k in range(1, intervals + 1):
    rate = 1200.0 if k == 1 else 2000.0
    samples += 44800
    t += int(44800 / rate * 1000)
    log("POINT_IN_TIME", "tracked_stats", {"seq/sec": rate, "step_loss": 3.2, "avg_loss": 3.3, "lr": 0.0004},
        step=[0, 100 * k])
    log("POINT_IN_TIME", "throughput", rate)
    if k % 4 == 0:
        log("INTERVAL_START", "eval_start", None, epoch_num=samples)
        t += 5000
        log("INTERVAL_END", "eval_stop", None, epoch_num=samples)
        log("POINT_IN_TIME", "eval_accuracy", 0.41, epoch_num=samples)
log("INTERVAL_END", "run_stop", None, status="aborted")
