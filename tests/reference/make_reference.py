#!/usr/bin/env python3
"""Generates the PyTorch reference fixtures the CPU trainer is tested against (run ONCE; outputs committed).

    python3 -m venv /tmp/refvenv && /tmp/refvenv/bin/pip install torch transformers h5py numpy
    /tmp/refvenv/bin/python tests/reference/make_reference.py tests/reference

Model: transformers BertForPreTraining, a tiny config (vocab 97, hidden 32, 2 layers, 2 heads,
intermediate 64), tanh-GELU ("gelu_new"), LayerNorm eps 1e-12, dropout 0, computed in float64 so
the fixture is the exact answer our fp32 code approximates. The heads run as NVIDIA's trainer does:
MLM transform + tied decoder only on the masked rows, pooler + NSP on each sequence's first token.
Packed rows use a block-diagonal 4-D additive attention mask and positions restarting per sequence;
the script checks that a packed row gives the same hidden states as its sequences run alone.

Files (HDF5):
  bert_tiny_padded.h5, bert_tiny_packed.h5
    attrs: vocab_size hidden layers heads intermediate max_position type_vocab
    /batch/*   the Batch fields (rows, seq_len as attrs; input_ids, segment_ids, input_mask,
               position_ids, cu_seqlens, seq_row, seq_first_token, seq_lengths, nsp_labels,
               mlm_token_index, mlm_label_ids, mlm_sequence)
    /weights/<TF name>  float32, TF shapes (kernels [in, out])
    /out/{loss, mlm_loss, nsp_loss, mlm_logits [M, V], nsp_logits [S, 2]}
    /grad/<TF name>     d(loss)/d(weight), TF shapes
  lamb_step.h5: one LAMB step of the reference formula (TF lamb_optimizer_v1 / apex FusedLAMB,
    global-norm clipping at 1.0 first) over the tiny layout's tensors, numpy float64:
    attrs lr beta1 beta2 eps weight_decay step; /param, /grad, /m, /v (before) and
    /param_after, /m_after, /v_after, each /<TF name>.
"""
import sys
from pathlib import Path

import h5py
import numpy as np
import torch
from transformers import BertConfig, BertForPreTraining

CFG = dict(vocab_size=97, hidden=32, layers=2, heads=2, intermediate=64, max_position=32, type_vocab=2)


def tf_names(c):
    """TF name -> (HF state-dict name, transpose?) in checkpoint order."""
    out = [("bert/embeddings/word_embeddings", "bert.embeddings.word_embeddings.weight", False),
           ("bert/embeddings/position_embeddings", "bert.embeddings.position_embeddings.weight", False),
           ("bert/embeddings/token_type_embeddings", "bert.embeddings.token_type_embeddings.weight", False),
           ("bert/embeddings/LayerNorm/gamma", "bert.embeddings.LayerNorm.weight", False),
           ("bert/embeddings/LayerNorm/beta", "bert.embeddings.LayerNorm.bias", False)]
    for i in range(c["layers"]):
        tf, hf = f"bert/encoder/layer_{i}", f"bert.encoder.layer.{i}"
        for a in ("query", "key", "value"):
            out += [(f"{tf}/attention/self/{a}/kernel", f"{hf}.attention.self.{a}.weight", True),
                    (f"{tf}/attention/self/{a}/bias", f"{hf}.attention.self.{a}.bias", False)]
        for t, h in (("attention/output", "attention.output"), ("intermediate", "intermediate"), ("output", "output")):
            out += [(f"{tf}/{t}/dense/kernel", f"{hf}.{h}.dense.weight", True),
                    (f"{tf}/{t}/dense/bias", f"{hf}.{h}.dense.bias", False)]
            if t != "intermediate":
                out += [(f"{tf}/{t}/LayerNorm/gamma", f"{hf}.{h}.LayerNorm.weight", False),
                        (f"{tf}/{t}/LayerNorm/beta", f"{hf}.{h}.LayerNorm.bias", False)]
    out += [("bert/pooler/dense/kernel", "bert.pooler.dense.weight", True),
            ("bert/pooler/dense/bias", "bert.pooler.dense.bias", False),
            ("cls/predictions/transform/dense/kernel", "cls.predictions.transform.dense.weight", True),
            ("cls/predictions/transform/dense/bias", "cls.predictions.transform.dense.bias", False),
            ("cls/predictions/transform/LayerNorm/gamma", "cls.predictions.transform.LayerNorm.weight", False),
            ("cls/predictions/transform/LayerNorm/beta", "cls.predictions.transform.LayerNorm.bias", False),
            ("cls/predictions/output_bias", "cls.predictions.bias", False),
            ("cls/seq_relationship/output_weights", "cls.seq_relationship.weight", False),
            ("cls/seq_relationship/output_bias", "cls.seq_relationship.bias", False)]
    return out


def make_model():
    c = CFG
    hf = BertConfig(vocab_size=c["vocab_size"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                    num_attention_heads=c["heads"], intermediate_size=c["intermediate"], hidden_act="gelu_new",
                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                    max_position_embeddings=c["max_position"], type_vocab_size=c["type_vocab"], layer_norm_eps=1e-12)
    hf._attn_implementation = "eager"
    model = BertForPreTraining(hf).double()
    rng = np.random.default_rng(1234)
    sd = model.state_dict()
    weights = {}
    with torch.no_grad():
        for tf, name, transpose in tf_names(c):
            shape = tuple(sd[name].shape)
            if tf.endswith("gamma"):
                w = 1.0 + 0.1 * rng.standard_normal(shape)
            elif tf.endswith("beta") or "bias" in tf:
                w = 0.05 * rng.standard_normal(shape)
            else:
                w = 0.2 * rng.standard_normal(shape)
            w = w.astype(np.float32)  # the fixture stores fp32 weights; the model computes in f64 from them
            sd[name].copy_(torch.from_numpy(w.astype(np.float64)))
            weights[tf] = w.T.copy() if transpose else w
        model.cls.predictions.decoder.bias = model.cls.predictions.bias  # keep the tie explicit
    return model, weights


def make_batch(rng, seq_len, rows_of_lengths):
    """rows_of_lengths: per row, the real lengths of its sequences (more than one = packed)."""
    V = CFG["vocab_size"]
    rows = len(rows_of_lengths)
    ids = np.zeros((rows, seq_len), np.int32)
    seg = np.zeros((rows, seq_len), np.int8)
    mask = np.zeros((rows, seq_len), np.int8)
    pos = np.zeros((rows, seq_len), np.int32)
    cu, seq_row, first, lens, nsp, mlm_idx, mlm_lab, mlm_seq = [0], [], [], [], [], [], [], []
    s = 0
    for r, lengths in enumerate(rows_of_lengths):
        off = 0
        for L in lengths:
            f = r * seq_len + off
            toks = rng.integers(5, V, L)
            toks[0] = 1  # [CLS]
            toks[L - 1] = 2  # [SEP]
            split = max(2, L // 2)
            ids[r, off:off + L] = toks
            seg[r, off + split:off + L] = 1
            mask[r, off:off + L] = 1
            pos[r, off:off + L] = np.arange(L)
            cu.append(f + L)
            seq_row.append(r)
            first.append(f)
            lens.append(L)
            nsp.append(int(rng.integers(0, 2)))
            n_mask = max(1, round(0.2 * L))
            for p in sorted(rng.choice(np.arange(1, L - 1), n_mask, replace=False)):
                mlm_idx.append(f + int(p))
                mlm_lab.append(int(rng.integers(5, V)))
                ids[r, off + p] = 3  # [MASK]
                mlm_seq.append(s)
            s += 1
            off += L
    return dict(rows=rows, seq_len=seq_len, input_ids=ids.ravel(), segment_ids=seg.ravel(), input_mask=mask.ravel(),
                position_ids=pos.ravel(), cu_seqlens=np.array(cu, np.int32), seq_row=np.array(seq_row, np.int32),
                seq_first_token=np.array(first, np.int32), seq_lengths=np.array(lens, np.int32),
                nsp_labels=np.array(nsp, np.int8), mlm_token_index=np.array(mlm_idx, np.int32),
                mlm_label_ids=np.array(mlm_lab, np.int32), mlm_sequence=np.array(mlm_seq, np.int32))


def additive_mask(b):
    """[rows, 1, S, S] float64: 0 where query and key are real tokens of the same sequence, else -1e4·(big)."""
    rows, S = b["rows"], b["seq_len"]
    owner = -np.ones(rows * S, np.int64)
    for s, (f, L) in enumerate(zip(b["seq_first_token"], b["seq_lengths"])):
        owner[f:f + L] = s
    owner = owner.reshape(rows, S)
    same = (owner[:, :, None] == owner[:, None, :]) & (owner[:, :, None] >= 0)
    same |= np.eye(S, dtype=bool)[None]  # padding queries attend to themselves (no NaN; unused)
    return torch.from_numpy(np.where(same, 0.0, -1e30)[:, None, :, :])


def encode(model, b):
    rows, S = b["rows"], b["seq_len"]
    ids = torch.from_numpy(b["input_ids"].reshape(rows, S).astype(np.int64))
    seg = torch.from_numpy(b["segment_ids"].reshape(rows, S).astype(np.int64))
    pos = torch.from_numpy(b["position_ids"].reshape(rows, S).astype(np.int64))
    hidden = model.bert(input_ids=ids, attention_mask=additive_mask(b), token_type_ids=seg, position_ids=pos)[0]
    return hidden.reshape(rows * S, -1)


def run(model, b):
    flat = encode(model, b)
    mlm_logits = model.cls.predictions(flat[torch.from_numpy(b["mlm_token_index"].astype(np.int64))])
    pooled = torch.tanh(model.bert.pooler.dense(flat[torch.from_numpy(b["seq_first_token"].astype(np.int64))]))
    nsp_logits = model.cls.seq_relationship(pooled)
    ce = torch.nn.functional.cross_entropy
    mlm_loss = ce(mlm_logits, torch.from_numpy(b["mlm_label_ids"].astype(np.int64)))
    nsp_loss = ce(nsp_logits, torch.from_numpy(b["nsp_labels"].astype(np.int64)))
    return flat, mlm_logits, nsp_logits, mlm_loss, nsp_loss


def check_packing_is_block_diagonal(model, packed):
    """Each sequence of a packed row must give the hidden states it gives alone."""
    flat = encode(model, packed)
    for f, L in zip(packed["seq_first_token"], packed["seq_lengths"]):
        flat1 = encode(model, make_single(packed, f, L))
        err = (flat1[:L] - flat[f:f + L]).abs().max().item()
        assert err < 1e-10, f"packed sequence at {f} differs from running it alone by {err}"


def make_single(b, f, L):
    S = b["seq_len"]
    one = dict(rows=1, seq_len=S, seq_first_token=np.array([0], np.int32), seq_lengths=np.array([L], np.int32))
    for k in ("input_ids", "segment_ids", "position_ids"):
        a = np.zeros(S, b[k].dtype)
        a[:L] = b[k][f:f + L]
        one[k] = a
    return one


def write_model_case(path, model, weights, b):
    model.zero_grad()
    _, mlm_logits, nsp_logits, mlm_loss, nsp_loss = run(model, b)
    loss = mlm_loss + nsp_loss
    loss.backward()
    grads = {}
    for tf, name, transpose in tf_names(CFG):
        p = dict(model.named_parameters()).get(name)
        if p is None:  # cls.predictions.bias is the tied decoder bias
            p = model.cls.predictions.decoder.bias
        g = p.grad.detach().numpy()
        grads[tf] = (g.T if transpose else g).astype(np.float64)
    # the tied decoder adds its gradient into word_embeddings: torch already summed it on the shared tensor
    with h5py.File(path, "w") as h:
        for k, v in CFG.items():
            h.attrs[k] = v
        g = h.create_group("batch")
        g.attrs["rows"], g.attrs["seq_len"] = b["rows"], b["seq_len"]
        for k, v in b.items():
            if isinstance(v, np.ndarray):
                g.create_dataset(k, data=v)
        for tf, w in weights.items():
            h.create_dataset("weights/" + tf, data=w)
        h["out/loss"] = loss.item()
        h["out/mlm_loss"] = mlm_loss.item()
        h["out/nsp_loss"] = nsp_loss.item()
        h["out/mlm_logits"] = mlm_logits.detach().numpy()
        h["out/nsp_logits"] = nsp_logits.detach().numpy()
        for tf, gr in grads.items():
            h.create_dataset("grad/" + tf, data=gr)
    return grads


def lamb_reference(path, weights):
    """One step of the reference LAMB on random state, numpy float64 (inputs stored as float32)."""
    rng = np.random.default_rng(77)
    lr, b1, b2, eps, wd, step = 4e-3, 0.9, 0.999, 1e-6, 0.01, 3
    p = {k: v.astype(np.float32) for k, v in weights.items()}
    g = {k: (0.3 * rng.standard_normal(v.shape)).astype(np.float32) for k, v in weights.items()}
    m = {k: (0.01 * rng.standard_normal(v.shape)).astype(np.float32) for k, v in weights.items()}
    v_ = {k: (1e-4 * rng.random(v.shape)).astype(np.float32) for k, v in weights.items()}
    gnorm = np.sqrt(sum(np.sum(x.astype(np.float64) ** 2) for x in g.values()))
    assert gnorm > 1.0, "the fixture must exercise clipping"
    clip = 1.0 / max(gnorm, 1.0)
    pa, ma, va = {}, {}, {}
    for k in weights:
        excluded = any(s in k for s in ("LayerNorm", "layer_norm", "bias"))
        gg = g[k].astype(np.float64) * clip
        mm = b1 * m[k] + (1 - b1) * gg
        vv = b2 * v_[k] + (1 - b2) * gg * gg
        mh = mm / (1 - b1 ** step)
        vh = vv / (1 - b2 ** step)
        u = mh / (np.sqrt(vh) + eps)
        w = p[k].astype(np.float64)
        if not excluded:
            u = u + wd * w
        wn, un = np.linalg.norm(w), np.linalg.norm(u)
        r = wn / un if (not excluded and wn > 0 and un > 0) else 1.0
        pa[k], ma[k], va[k] = w - lr * r * u, mm, vv
    with h5py.File(path, "w") as h:
        for name, val in dict(lr=lr, beta1=b1, beta2=b2, eps=eps, weight_decay=wd, step=step).items():
            h.attrs[name] = val
        h.attrs["grad_norm"] = gnorm
        for grp, d in (("param", p), ("grad", g), ("m", m), ("v", v_), ("param_after", pa), ("m_after", ma),
                       ("v_after", va)):
            for k, x in d.items():
                h.create_dataset(f"{grp}/{k}", data=x)


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    torch.manual_seed(0)
    model, weights = make_model()
    rng = np.random.default_rng(4321)
    padded = make_batch(rng, 16, [[16], [11], [7]])
    packed = make_batch(rng, 16, [[9, 7], [5, 6, 4]])
    check_packing_is_block_diagonal(model, packed)
    write_model_case(out / "bert_tiny_padded.h5", model, weights, padded)
    write_model_case(out / "bert_tiny_packed.h5", model, weights, packed)
    lamb_reference(out / "lamb_step.h5", weights)
    print("wrote", *(str(out / n) for n in ("bert_tiny_padded.h5", "bert_tiny_packed.h5", "lamb_step.h5")))


if __name__ == "__main__":
    main()
