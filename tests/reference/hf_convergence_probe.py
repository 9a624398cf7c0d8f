#!/usr/bin/env python3
"""Cross-check of tiny BERT's learning curve on `bert-data synth` data with an independent
implementation: transformers' BertForPreTraining (torch, CPU), AdamW, linear warmup (50 steps) and
linear decay, reading the shards with h5py (no code of ours on the path). Prints the masked-LM
accuracy on the eval file every ~2048 samples. A diagnostic tool (not a test; needs torch):

    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install torch transformers h5py numpy
    /tmp/refvenv/bin/python tests/reference/hf_convergence_probe.py DATA_DIR SAMPLES LR SEQ_LEN VOCAB [BATCH] [THREADS]

Measured results are in trainer/README.md ("Convergence").
"""
import glob
import sys
import time

import h5py
import numpy as np
import torch
from transformers import BertConfig, BertForPreTraining


def load(path):
    f = h5py.File(path, "r")
    cols = [f[k][:] for k in ("input_ids", "segment_ids", "masked_lm_positions", "masked_lm_ids")]
    nsp = f["next_sentence_labels"][:]
    return [(cols[0][i], cols[1][i], cols[2][i], cols[3][i], int(nsp[i])) for i in range(len(nsp))]


def to_tensors(rows, seq_len):
    n = len(rows)
    ids = torch.zeros(n, seq_len, dtype=torch.long)
    seg = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    labels = torch.full((n, seq_len), -100, dtype=torch.long)
    nsp = torch.zeros(n, dtype=torch.long)
    for r, (i, s, pos, lab, ns) in enumerate(rows):
        ids[r, : len(i)] = torch.from_numpy(i.astype(np.int64))
        seg[r, : len(s)] = torch.from_numpy(s.astype(np.int64))
        mask[r, : len(i)] = 1
        labels[r, torch.from_numpy(pos.astype(np.int64))] = torch.from_numpy(lab.astype(np.int64))
        nsp[r] = ns
    return ids, seg, mask, labels, nsp


def main():
    data, samples, lr, seq_len, vocab = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    batch = int(sys.argv[6]) if len(sys.argv) > 6 else 16
    torch.set_num_threads(int(sys.argv[7]) if len(sys.argv) > 7 else 2)
    torch.manual_seed(0)
    train = [row for p in sorted(glob.glob(data + "/train/part*")) for row in load(p)]
    evals = load(data + "/eval/part_eval.hdf5")
    cfg = BertConfig(vocab_size=vocab, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=512, max_position_embeddings=512)
    model = BertForPreTraining(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps = samples // batch
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 50) * max(0.0, 1 - s / steps))

    def accuracy():
        model.eval()
        hit = total = 0
        with torch.no_grad():
            for k in range(0, len(evals), 64):
                ids, seg, mask, labels, _ = to_tensors(evals[k : k + 64], seq_len)
                pred = model(input_ids=ids, token_type_ids=seg, attention_mask=mask).prediction_logits.argmax(-1)
                sel = labels != -100
                hit += (pred[sel] == labels[sel]).sum().item()
                total += sel.sum().item()
        model.train()
        return hit / total

    rng = np.random.default_rng(0)
    order = rng.permutation(len(train))
    at = 0
    t0 = time.time()
    for step in range(steps):
        if at + batch > len(order):
            order, at = rng.permutation(len(train)), 0
        ids, seg, mask, labels, nsp = to_tensors([train[j] for j in order[at : at + batch]], seq_len)
        at += batch
        loss = model(input_ids=ids, token_type_ids=seg, attention_mask=mask, labels=labels, next_sentence_label=nsp).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        seen = (step + 1) * batch
        if seen % 2048 < batch:
            print(f"samples {seen} loss {loss.item():.3f} eval_mlm_accuracy {accuracy():.3f} ({time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
