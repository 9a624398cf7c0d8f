#!/usr/bin/env python3
"""PyTorch peer of bench/trainer_throughput: the same BERT model and the same batches in
transformers' BertForPreTraining (bf16 autocast over fp32 weights, SDPA attention, torch.compile
where it works), one training step = forward + backward + optimizer step.

  python3 bench/peers/hf_bert.py --batches FILE [--batches FILE2 ...] [--size large] [--steps 20]
      [--warmup 5] [--no-compile] [--ready-file R --go-file G] [--out-dir DIR]

FILE is written by `trainer_throughput --mode M --dump-batches FILE`. Prints one JSON object per FILE
with the same keys as trainer_throughput (seq_per_s, model_tflops, mfu: model FLOPs counted the same
way, over real tokens), and with --out-dir also writes it to DIR/<mode>.json. Several FILEs (modes)
share one model and optimizer; torch.compile makes a static graph for each shape (dynamic=False), one
step each, before any timing. With --ready-file / --go-file: after those compile steps the process
frees its cached memory, creates R and waits, idle, until G exists, then times each FILE in turn
(scripts/bench-gpu compiles the peers while the GPU tests run: minutes of CPU, no timed step of ours
overlapping its GPU work). Differences that favour neither side's figure but are worth knowing:
  * packed rows use a 3-D block-diagonal attention mask (BERT in transformers has no varlen path), and
    positions restart per sequence through position_ids, as in our trainer;
  * the MLM head runs over every token (transformers has no sparse head), labels -100 off the masks;
  * NSP takes one label per row (the first sequence's): BertForPreTraining pools token 0 only;
  * the optimizer is torch.optim.AdamW(fused=True): torch ships no LAMB (apex's FusedLAMB is not
    in the image); both are one fused elementwise pass over the parameters plus norms.
Test-and-benchmark tool only (never on the trainer's run path)."""
import argparse
import json
import os
import statistics
import sys
import time


def flops_per_step(cfg, batch):
    h, i, v, layers = cfg["hidden"], cfg["intermediate"], cfg["vocab"], cfg["layers"]
    lens = batch["seq_lengths"]
    tokens = sum(lens)
    sq = sum(n * n for n in lens)
    fwd = layers * (tokens * 2.0 * (4 * h * h + 2 * h * i) + 4.0 * h * sq)
    fwd += len(batch["mlm_token_index"]) * (2 * h * h + 2 * h * v) + len(lens) * (2 * h * h + 4 * h)
    return 3.0 * fwd / 1e12


SIZES = {
    "tiny": dict(hidden=128, layers=2, heads=2, intermediate=512),
    "base": dict(hidden=768, layers=12, heads=12, intermediate=3072),
    "large": dict(hidden=1024, layers=24, heads=16, intermediate=4096),
}


def to_tensors(torch, batch, device):
    rows, seq_len = batch["rows"], batch["seq_len"]
    shape = (rows, seq_len)
    ids = torch.tensor(batch["input_ids"], dtype=torch.long).view(shape)
    seg = torch.tensor(batch["segment_ids"], dtype=torch.long).view(shape)
    pos = torch.tensor(batch["position_ids"], dtype=torch.long).view(shape)
    labels = torch.full((rows * seq_len,), -100, dtype=torch.long)
    labels[torch.tensor(batch["mlm_token_index"], dtype=torch.long)] = torch.tensor(batch["mlm_label_ids"], dtype=torch.long)
    labels = labels.view(shape)
    seq_id = torch.full((rows * seq_len,), -1, dtype=torch.long)
    nsp = torch.zeros(rows, dtype=torch.long)
    seen = set()
    for s, (first, n) in enumerate(zip(batch["seq_first_token"], batch["seq_lengths"])):
        seq_id[first:first + n] = s
        row = first // seq_len
        if row not in seen:
            seen.add(row)
            nsp[row] = batch["nsp_labels"][s]
    seq_id = seq_id.view(shape)
    real = seq_id >= 0
    if max(len([1 for f in batch["seq_first_token"] if f // seq_len == r]) for r in range(rows)) > 1:
        # block-diagonal: a token attends only within its own sequence
        mask = (seq_id[:, :, None] == seq_id[:, None, :]) & real[:, :, None] & real[:, None, :]
        # padding queries attend to themselves only, so their softmax rows stay finite
        eye = torch.eye(seq_len, dtype=torch.bool).expand(rows, -1, -1)
        mask = mask | (eye & ~real[:, :, None])
        attn = mask[:, None, :, :]  # [rows, 1, S, S], True = attend (converted in main() if needed)
    else:
        attn = real.long()
    t = dict(input_ids=ids, token_type_ids=seg, position_ids=pos, attention_mask=attn, labels=labels,
             next_sentence_label=nsp)
    return {k: x.to(device, non_blocking=True) for k, x in t.items()}


def prepare(torch, model, dump, dev):
    """The dump's batches as device tensors, and the attention-mask form this transformers accepts."""
    batches = [to_tensors(torch, b, dev) for b in dump["batches"]]
    # transformers' mask handling differs between versions: use the first block-diagonal mask form
    # this version accepts (bool 4-D, additive float 4-D, 0/1 3-D).
    mask_form = "2d"
    if batches[0]["attention_mask"].dim() == 4:
        forms = {
            "bool4d": lambda m: m,
            "additive4d": lambda m: torch.zeros(m.shape, device=dev).masked_fill(~m, float("-inf")),
            "long3d": lambda m: m[:, 0].long(),
        }
        for name, conv in forms.items():
            try:
                with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
                    model(**{**batches[0], "attention_mask": conv(batches[0]["attention_mask"])})
                mask_form = name
                break
            except Exception as e:  # try the next form
                print(f"hf_bert.py: mask form {name} rejected: {type(e).__name__}: {e}", file=sys.stderr)
        else:
            return None, None
        for b in batches:
            b["attention_mask"] = forms[mask_form](b["attention_mask"])
    return batches, mask_form


def wait_for(path, timeout_s):
    deadline = time.monotonic() + timeout_s
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", required=True, action="append")
    ap.add_argument("--size", default="large", choices=sorted(SIZES))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--peak-tflops", type=float, default=989.4)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--ready-file", help="created once every shape is compiled; then wait for --go-file")
    ap.add_argument("--go-file", help="timing starts when this file exists")
    ap.add_argument("--go-timeout", type=float, default=900.0)
    ap.add_argument("--out-dir", help="also write each result to DIR/<mode>.json")
    args = ap.parse_args()
    if bool(args.ready_file) != bool(args.go_file):
        print("hf_bert.py: --ready-file and --go-file go together", file=sys.stderr)
        return 2

    dumps = []
    for path in args.batches:
        try:
            with open(path) as f:
                dumps.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"hf_bert.py: cannot read batches file {path}: {e}", file=sys.stderr)
            return 2
    try:
        import torch
        import transformers
    except ImportError as e:
        print(f"SKIPPED: no PyTorch here ({e})")
        return 77
    if not torch.cuda.is_available():
        print("SKIPPED: no CUDA device")
        return 77
    dev = torch.device("cuda")
    s = SIZES[args.size]
    cfg = transformers.BertConfig(vocab_size=30522, hidden_size=s["hidden"], num_hidden_layers=s["layers"],
                                  num_attention_heads=s["heads"], intermediate_size=s["intermediate"],
                                  hidden_act="gelu_new",  # the tanh form BERT uses
                                  hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
                                  max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12)
    torch.manual_seed(0)
    try:
        model = transformers.BertForPreTraining._from_config(cfg, attn_implementation="sdpa")
    except TypeError:  # older/newer signature: set the implementation on the config instead
        cfg._attn_implementation = "sdpa"
        model = transformers.BertForPreTraining(cfg)
    model = model.to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
    prepared = []
    for dump in dumps:
        batches, mask_form = prepare(torch, model, dump, dev)
        if batches is None:
            print("hf_bert.py: no block-diagonal mask form accepted by this transformers", file=sys.stderr)
            return 1
        prepared.append((dump, batches, mask_form))
    fcfg = dict(hidden=s["hidden"], intermediate=s["intermediate"], layers=s["layers"], vocab=30522)

    def step(b):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = model(**b)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return out.loss

    compiled = False
    run_step = step
    if not args.no_compile:
        try:
            run_step = torch.compile(step, dynamic=False)
            for _, batches, _ in prepared:  # one static graph per shape, compiled now
                run_step(batches[0])
            torch.cuda.synchronize()
            compiled = True
        except Exception as e:  # compile failures fall back to eager, reported in the JSON
            print(f"hf_bert.py: torch.compile failed, eager instead: {type(e).__name__}: {e}", file=sys.stderr)
            run_step = step
    if args.ready_file:
        torch.cuda.empty_cache()
        open(args.ready_file, "w").close()
        if not wait_for(args.go_file, args.go_timeout):
            print(f"hf_bert.py: {args.go_file} did not appear within {args.go_timeout:g} s", file=sys.stderr)
            return 1

    for dump, batches, mask_form in prepared:
        torch.cuda.empty_cache()  # each mode's memory reading its own
        torch.cuda.reset_peak_memory_stats()
        times, seqs, tflop, loss = [], 0, 0.0, float("nan")
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for i in range(args.warmup + args.steps):
            k = i % len(batches)
            start.record()
            loss_t = run_step(batches[k])
            stop.record()
            stop.synchronize()
            if i >= args.warmup:
                times.append(start.elapsed_time(stop))
                seqs += len(dump["batches"][k]["seq_lengths"])
                tflop += flops_per_step(fcfg, dump["batches"][k])
            loss = float(loss_t)
        med = statistics.median(times)
        free_b, total_b = torch.cuda.mem_get_info()  # as bench/trainer_throughput reads it: total - free, context included
        seq_per_step, tflop_per_step = seqs / args.steps, tflop / args.steps
        result = {
            "bench": "trainer_throughput", "implementation": "pytorch_transformers",
            "device": torch.cuda.get_device_name(0), "model": args.size, "mode": dump["mode"],
            "rows": dump["batches"][0]["rows"], "seq_len": dump["batches"][0]["seq_len"],
            "sequences_per_step": seq_per_step, "steps": args.steps, "warmup": args.warmup,
            "step_ms_median": med, "step_ms_min": min(times), "step_ms_mean": sum(times) / len(times),
            "seq_per_s": seq_per_step / (med / 1e3), "model_tflop_per_step": tflop_per_step,
            "model_tflops": tflop_per_step / (med / 1e3), "peak_tflops": args.peak_tflops,
            "mfu": tflop_per_step / (med / 1e3) / args.peak_tflops, "last_loss": loss,
            "torch": torch.__version__, "transformers": transformers.__version__,
            "device_memory_in_use_gib": (total_b - free_b) / 2**30,
            "max_allocated_gib": torch.cuda.max_memory_allocated() / 2**30,
            "torch_compile": compiled, "attention": "sdpa", "mask": mask_form, "optimizer": "AdamW(fused)",
            "modes_in_process": [d["mode"] for d, _, _ in prepared],
        }
        print(json.dumps(result), flush=True)
        if args.out_dir:
            with open(os.path.join(args.out_dir, f"{dump['mode']}.json.partial"), "w") as f:
                json.dump(result, f)
            os.replace(os.path.join(args.out_dir, f"{dump['mode']}.json.partial"),
                       os.path.join(args.out_dir, f"{dump['mode']}.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
