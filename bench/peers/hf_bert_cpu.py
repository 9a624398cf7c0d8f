#!/usr/bin/env python3
"""PyTorch CPU peer of bench/cpu_step: transformers' BertForPreTraining on the same sequences, one per
padded row with an attention mask as MLPerf's reference runs them (written by `cpu_step --dump-batches FILE`;
with cpu_step --mode packed ours runs them packed), dropout 0.1, the same masked positions, one
training step = forward + backward + clip_grad_norm_(1.0) + AdamW(fused=True). fp32, or with
--precision bf16 the forward under torch.autocast("cpu", bfloat16) (oneDNN bf16/AMX GEMMs, fp32 weights
and optimizer: the same split as ours).

  python3 bench/peers/hf_bert_cpu.py --batches FILE --size base --threads 1 [--steps 3] [--warmup 1]

Prints one JSON object with cpu_step's keys (step_s, fwd_bwd_s, medians, seq_per_s, peak_rss_mib).
The MLM head runs on the masked rows only, as ours and NVIDIA's PyTorch trainer do (BertForPreTraining's
own forward would run it over every token: ~5x the head's work at vocab 30522): model.bert, then
model.cls on the gathered rows, loss = mean MLM CE + mean NSP CE as ours. torch ships no LAMB, so fused
AdamW stands in (both are one elementwise pass over the parameters plus norms).
Benchmark tool only: needs torch + transformers (a venv outside the repo), never run by CI."""
import argparse
import json
import resource
import statistics
import sys
import time

SIZES = {
    "tiny": dict(hidden=128, layers=2, heads=2, intermediate=512),
    "base": dict(hidden=768, layers=12, heads=12, intermediate=3072),
    "large": dict(hidden=1024, layers=24, heads=16, intermediate=4096),
}


def to_tensors(torch, b):
    rows, seq_len = b["rows"], b["seq_len"]
    shape = (rows, seq_len)
    mlm_index = torch.tensor(b["mlm_token_index"], dtype=torch.long)
    real = torch.zeros(rows * seq_len, dtype=torch.long)
    nsp = torch.zeros(rows, dtype=torch.long)
    for first, n, lab in zip(b["seq_first_token"], b["seq_lengths"], b["nsp_labels"]):
        real[first:first + n] = 1
        nsp[first // seq_len] = lab
    return dict(input_ids=torch.tensor(b["input_ids"], dtype=torch.long).view(shape),
                token_type_ids=torch.tensor(b["segment_ids"], dtype=torch.long).view(shape),
                position_ids=torch.tensor(b["position_ids"], dtype=torch.long).view(shape),
                attention_mask=real.view(shape), mlm_index=mlm_index,
                mlm_labels=torch.tensor(b["mlm_label_ids"], dtype=torch.long), nsp_labels=nsp)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", required=True)
    ap.add_argument("--size", default="base", choices=sorted(SIZES))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--precision", default="fp32", choices=["fp32", "bf16"])
    args = ap.parse_args()
    try:
        with open(args.batches) as f:
            dump = json.load(f)
    except (OSError, ValueError) as e:
        print(f"hf_bert_cpu.py: cannot read batches file {args.batches}: {e}", file=sys.stderr)
        return 2
    import torch
    import transformers
    torch.set_num_threads(args.threads)
    s = SIZES[args.size]
    cfg = transformers.BertConfig(vocab_size=dump["vocab"], hidden_size=s["hidden"], num_hidden_layers=s["layers"],
                                  num_attention_heads=s["heads"], intermediate_size=s["intermediate"],
                                  hidden_act="gelu_new", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
                                  max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12)
    torch.manual_seed(0)
    model = transformers.BertForPreTraining(cfg)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
    ce = torch.nn.functional.cross_entropy
    batches = [to_tensors(torch, b) for b in dump["batches"]]
    step_s, fwd_bwd_s, opt_s, step_cpu_s, loss = [], [], [], [], float("nan")
    seqs, seq_per_s, fwd_bwd_seq_per_s = [], [], []
    for i in range(args.warmup + args.steps):
        b = batches[i % len(batches)]
        t0, c0 = time.perf_counter(), time.process_time()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            out = model.bert(input_ids=b["input_ids"], attention_mask=b["attention_mask"],
                             token_type_ids=b["token_type_ids"], position_ids=b["position_ids"])
            hidden = out.last_hidden_state.reshape(-1, out.last_hidden_state.shape[-1])[b["mlm_index"]]
            mlm_logits, nsp_logits = model.cls(hidden, out.pooler_output)
        loss_t = ce(mlm_logits.float(), b["mlm_labels"]) + ce(nsp_logits.float(), b["nsp_labels"])
        loss_t.backward()
        t1 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        t2, c2 = time.perf_counter(), time.process_time()
        loss = float(loss_t.detach())
        if i >= args.warmup:
            n = dump["batches"][i % len(batches)]["rows"]  # one sequence per row
            seqs.append(n)
            seq_per_s.append(n / (t2 - t0))
            fwd_bwd_seq_per_s.append(n / (t1 - t0))
            step_s.append(t2 - t0)
            step_cpu_s.append(c2 - c0)
            fwd_bwd_s.append(t1 - t0)
            opt_s.append(t2 - t1)
    rows = dump["batches"][0]["rows"]
    med = statistics.median(step_s)
    real_tokens = [sum(b["seq_lengths"]) for b in dump["batches"]]
    print(json.dumps({
        "bench": "cpu_step", "implementation": "pytorch", "precision": args.precision, "model": args.size, "rows": rows,
        "real_tokens_per_batch": real_tokens,
        "seq_len": dump["batches"][0]["seq_len"], "threads": args.threads, "steps": args.steps,
        "warmup": args.warmup, "step_s": step_s, "fwd_bwd_s": fwd_bwd_s, "optimizer_s": opt_s,
        "step_s_median": med, "step_cpu_s": step_cpu_s, "step_cpu_s_median": statistics.median(step_cpu_s), "fwd_bwd_s_median": statistics.median(fwd_bwd_s),
        "optimizer_s_median": statistics.median(opt_s), "sequences": seqs,
        "seq_per_s": statistics.median(seq_per_s), "fwd_bwd_seq_per_s": statistics.median(fwd_bwd_seq_per_s),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, "last_loss": loss,
        "torch": torch.__version__, "transformers": transformers.__version__,
        "attention": model.config._attn_implementation, "optimizer": "AdamW(fused)",
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
