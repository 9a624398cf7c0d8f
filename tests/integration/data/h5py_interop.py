#!/usr/bin/env python3
"""Files bert-data writes have MLPerf's dataset names, dtypes and shapes when h5py reads them, and
files h5py writes the MLPerf way (as NVIDIA's scripts do) are read and checksummed by bert-data."""
import hashlib
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA = sys.argv[1]


def run(*args, ok=True):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit(f"FAIL: bert-data {' '.join(args)} -> {p.returncode}\n{p.stdout}{p.stderr}")
    return p


def vlen_base(ds):
    return h5py.check_vlen_dtype(ds.dtype)


def check_ours(d):
    for fmt in ("fixed", "varlength", "packed"):
        out = os.path.join(d, fmt)
        run("synth", "--out", out, "--format", fmt, "--shards", "2", "--samples-per-shard", "300", "--eval-samples",
            "50", "--vocab", "1024", "--seq-len", "128", "--seed", "3")
        train = sorted(os.listdir(os.path.join(out, "train")))
        expect = ["part_00000", "part_00001"] if fmt == "packed" else ["part_00000_of_00002.hdf5",
                                                                     "part_00001_of_00002.hdf5"]
        assert train == expect, train
        with h5py.File(os.path.join(out, "train", train[0]), "r") as f:
            if fmt == "fixed":
                assert sorted(f.keys()) == sorted(["input_ids", "input_mask", "segment_ids", "masked_lm_positions",
                                                   "masked_lm_ids", "next_sentence_labels"])
                assert f["input_ids"].shape == (300, 128) and f["input_ids"].dtype == np.int16
                assert f["input_mask"].dtype == np.int8 and f["segment_ids"].dtype == np.int8
                assert f["masked_lm_positions"].shape == (300, 19) and f["masked_lm_positions"].dtype == np.int16
                assert f["masked_lm_ids"].dtype == np.int16
                assert f["next_sentence_labels"].shape == (300,) and f["next_sentence_labels"].dtype == np.int8
                ids, mask = f["input_ids"][:], f["input_mask"][:]
                lens = mask.sum(1)
                assert ((ids != 0).sum(1) == lens).all() and (ids[:, 0] == 101).all()
                pos = f["masked_lm_positions"][:]
                assert (pos[:, 0] > 0).all()
            elif fmt == "varlength":
                assert sorted(f.keys()) == sorted(["input_ids", "segment_ids", "masked_lm_positions", "masked_lm_ids",
                                                   "next_sentence_labels"])
                for k, base in (("input_ids", np.int16), ("segment_ids", np.int8), ("masked_lm_positions", np.int16),
                                ("masked_lm_ids", np.int16)):
                    assert f[k].shape == (300,) and vlen_base(f[k]) == base, k
                assert f["next_sentence_labels"].dtype == np.int8
                for i in range(300):
                    ids, pos = f["input_ids"][i], f["masked_lm_positions"][i]
                    assert ids[0] == 101 and ids[-1] == 102 and len(f["segment_ids"][i]) == len(ids)
                    assert len(f["masked_lm_ids"][i]) == len(pos) and (np.diff(pos) > 0).all() and pos[0] > 0
            else:
                assert sorted(f.keys()) == sorted(["input_ids", "segment_ids", "packed_input_len", "masked_lm_positions",
                                                   "masked_lm_ids", "packed_masked_lm_len", "next_sentence_labels"])
                for k, base in (("input_ids", np.int16), ("segment_ids", np.int8), ("packed_input_len", np.int16),
                                ("masked_lm_positions", np.int16), ("masked_lm_ids", np.int16),
                                ("packed_masked_lm_len", np.int16), ("next_sentence_labels", np.int8)):
                    assert vlen_base(f[k]) == base, k
                n = f["input_ids"].shape[0]
                seqs = 0
                for p in range(n):
                    lens, mlens = f["packed_input_len"][p], f["packed_masked_lm_len"][p]
                    ids, pos = f["input_ids"][p], f["masked_lm_positions"][p]
                    assert 1 <= len(lens) <= 3 and lens.sum() == len(ids) <= 128
                    assert mlens.sum() == len(pos) == len(f["masked_lm_ids"][p])
                    assert len(f["next_sentence_labels"][p]) == len(lens)
                    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
                    assert (ids[starts] == 101).all()
                    k = 0
                    for s, l, m in zip(starts, lens, mlens):  # positions offset into the pack
                        assert ((pos[k:k + m] > s) & (pos[k:k + m] < s + l)).all()
                        k += m
                    seqs += len(lens)
                assert seqs == 300, seqs
        eval_file = os.path.join(out, "eval", "part_eval.hdf5")
        with h5py.File(eval_file, "r") as f:
            assert f["input_ids"].shape[0] == 50
            assert (f["input_ids"].ndim == 2) == (fmt == "fixed")


def md5_chk(path):
    """NVIDIA's hdf5_md5.py scheme."""
    h = hashlib.md5
    with h5py.File(path, "r") as f:
        rows = [h(str(f["input_ids"][i].tolist()).encode("utf-8")).hexdigest() for i in range(f["input_ids"].shape[0])]
    return h(str(rows).encode("utf-8")).hexdigest()


def check_theirs(d):
    """Shards written like NVIDIA's create_pretraining_data.py / convert_fixed2variable.py."""
    rng = np.random.default_rng(0)
    n, L, P = 40, 64, 10
    lens = rng.integers(8, L + 1, n)
    ids = np.zeros((n, L), np.int16)
    mask = np.zeros((n, L), np.int8)
    seg = np.zeros((n, L), np.int8)
    pos = np.zeros((n, P), np.int16)
    mid = np.zeros((n, P), np.int16)
    for i, l in enumerate(lens):
        ids[i, :l] = rng.integers(999, 30522, l)
        ids[i, 0], ids[i, l - 1] = 101, 102
        mask[i, :l] = 1
        seg[i, l // 2:l] = 1
        k = min(P, max(1, round(0.15 * l)))
        p = np.sort(rng.choice(np.arange(1, l - 1), k, replace=False))
        pos[i, :k], mid[i, :k] = p, ids[i, p]
    nsp = rng.integers(0, 2, n).astype(np.int8)
    os.makedirs(os.path.join(d, "theirs_fixed"))
    os.makedirs(os.path.join(d, "theirs_var"))
    fixed = os.path.join(d, "theirs_fixed", "part_00000_of_00001.hdf5")
    with h5py.File(fixed, "w") as f:
        f.create_dataset("input_ids", data=ids, dtype="i2", compression=None)
        f.create_dataset("input_mask", data=mask, dtype="i1")
        f.create_dataset("segment_ids", data=seg, dtype="i1")
        f.create_dataset("masked_lm_positions", data=pos, dtype="i2")
        f.create_dataset("masked_lm_ids", data=mid, dtype="i2")
        f.create_dataset("next_sentence_labels", data=nsp, dtype="i1")
    var = os.path.join(d, "theirs_var", "part_00000_of_00001.hdf5")
    with h5py.File(var, "w") as f:
        for name, src, dt, cut in (("input_ids", ids, "int16", lens), ("segment_ids", seg, "int8", lens)):
            ds = f.create_dataset(name, (n,), dtype=h5py.vlen_dtype(np.dtype(dt)))
            for i in range(n):
                ds[i] = src[i, :cut[i]]
        counts = (pos != 0).sum(1)
        for name, src in (("masked_lm_positions", pos), ("masked_lm_ids", mid)):
            ds = f.create_dataset(name, (n,), dtype=h5py.vlen_dtype(np.dtype("int16")))
            for i in range(n):
                ds[i] = src[i, :counts[i]]
        f.create_dataset("next_sentence_labels", data=nsp, dtype="i1")
    packed = os.path.join(d, "theirs_packed")
    os.makedirs(packed)
    with h5py.File(os.path.join(packed, "part_00000"), "w") as f:  # sequences (0,1), (2,), (3,4,5)
        groups = [[0, 1], [2], [3, 4, 5]]
        groups = [g for g in groups if lens[g].sum() <= 256]
        dts = {"input_ids": "int16", "segment_ids": "int8", "packed_input_len": "int16", "masked_lm_positions": "int16",
               "masked_lm_ids": "int16", "packed_masked_lm_len": "int16", "next_sentence_labels": "int8"}
        dss = {k: f.create_dataset(k, (len(groups),), dtype=h5py.vlen_dtype(np.dtype(v))) for k, v in dts.items()}
        for p, g in enumerate(groups):
            counts = [(pos[i] != 0).sum() for i in g]
            offs = np.concatenate([[0], np.cumsum(lens[g])[:-1]])
            dss["input_ids"][p] = np.concatenate([ids[i, :lens[i]] for i in g])
            dss["segment_ids"][p] = np.concatenate([seg[i, :lens[i]] for i in g])
            dss["packed_input_len"][p] = lens[g].astype(np.int16)
            dss["masked_lm_positions"][p] = np.concatenate([pos[i, :c] + o for i, c, o in zip(g, counts, offs)])
            dss["masked_lm_ids"][p] = np.concatenate([mid[i, :c] for i, c in zip(g, counts)])
            dss["packed_masked_lm_len"][p] = np.array(counts, np.int16)
            dss["next_sentence_labels"][p] = nsp[g]

    out = run("verify", fixed, "--vocab", "30522", "--seq-len", "64", "--max-pred", "10").stdout
    assert f"sequences {n}, tokens {lens.sum()}" in out, out
    out = run("verify", var, "--vocab", "30522", "--seq-len", "64", "--max-pred", "10").stdout
    assert f"sequences {n}, tokens {lens.sum()}" in out, out
    out = run("verify", packed, "--vocab", "30522", "--seq-len", "256").stdout
    assert "sequences 6" in out, out
    # checksums: our .chk equals NVIDIA's scheme computed by h5py, for fixed and varlength files
    for path in (fixed, var):
        chk = os.path.join(d, "x.chk")
        run("verify", path, "--write-chk", chk)
        line = open(chk).read().strip()
        assert line == f"{os.path.basename(path)}\t{md5_chk(path)}", (line, md5_chk(path))
        run("verify", path, "--chk", chk)
        with open(chk, "w") as f:
            f.write(f"{os.path.basename(path)}\t{'0' * 32}\n")
        p = run("verify", path, "--chk", chk, ok=False)
        assert p.returncode == 2 and "md5" in p.stderr, p.stderr
    # to-varlength of their fixed file equals their varlength file, sample by sample
    run("to-varlength", fixed, os.path.join(d, "conv"))
    with h5py.File(os.path.join(d, "conv", "part_00000_of_00001.hdf5"), "r") as a, h5py.File(var, "r") as b:
        for k in ("input_ids", "segment_ids", "masked_lm_positions", "masked_lm_ids"):
            for i in range(n):
                assert np.array_equal(a[k][i], b[k][i]), (k, i)
        assert np.array_equal(a["next_sentence_labels"][:], b["next_sentence_labels"][:])


def main():
    with tempfile.TemporaryDirectory() as d:
        check_ours(d)
        check_theirs(d)
    print("OK")


if __name__ == "__main__":
    main()
