#!/usr/bin/env python3
"""`bert-data chop`, `to-varlength`, `shuffle` and `pick-eval` against small reference runs of
the same rules, written here in Python the way NVIDIA's scripts do them: chop_hdf5_files.py
(inputs in sorted order, nominal = ceil(N/shards), the first shards*nominal - N shards one
smaller), convert_fixed2variable.py (row cut at sum(input_mask), predictions = non-zero
positions), shuffle_indices.py + shuffle_samples.py (random.Random(24).shuffle of the
(shard, index) pairs of the sorted shards, each output shard keeping its input's size) and
pick_eval_samples.py (rows int(i*N/count)). Every field of every sample is compared."""
import math
import os
import random
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA, FIXTURES = sys.argv[1], sys.argv[2]
FIXED = ["input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids", "next_sentence_labels"]


def run(*args, expect=0):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
    return p


def shards(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("part"))


def read_fixed(paths):
    out = {k: [] for k in FIXED}
    for p in paths:
        with h5py.File(p, "r") as f:
            for k in FIXED:
                out[k].append(f[k][...])
    return {k: np.concatenate(v) for k, v in out.items()}


def to_var(fixed):
    """convert_fixed2variable.py, as lists of per-sample tuples."""
    n = len(fixed["next_sentence_labels"])
    rows = []
    for i in range(n):
        length = int(fixed["input_mask"][i].sum())
        nm = int(np.count_nonzero(fixed["masked_lm_positions"][i]))
        rows.append((tuple(fixed["input_ids"][i][:length]), tuple(fixed["segment_ids"][i][:length]),
                     tuple(fixed["masked_lm_positions"][i][:nm]), tuple(fixed["masked_lm_ids"][i][:nm]),
                     int(fixed["next_sentence_labels"][i])))
    return rows


def read_var(path):
    with h5py.File(path, "r") as f:
        assert f["input_ids"].dtype.metadata["vlen"] == np.int16, f["input_ids"].dtype
        assert f["segment_ids"].dtype.metadata["vlen"] == np.int8
        assert "input_mask" not in f
        return [(tuple(f["input_ids"][i]), tuple(f["segment_ids"][i]), tuple(f["masked_lm_positions"][i]),
                 tuple(f["masked_lm_ids"][i]), int(f["next_sentence_labels"][i])) for i in range(len(f["input_ids"]))]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        fixed = os.path.join(tmp, "training")
        run("create", os.path.join(FIXTURES, "text"), fixed, "--vocab", os.path.join(FIXTURES, "vocab.txt"),
            "--max-seq-length", "128", "--max-predictions-per-seq", "20")
        src = read_fixed(shards(fixed))
        n = len(src["next_sentence_labels"])

        # chop: 7 shards, sizes by the reference rule, rows in order.
        chopped = os.path.join(tmp, "chopped")
        run("chop", fixed, chopped, "--shards", "7", "--jobs", "2")
        nominal = math.ceil(n / 7)
        excess = 7 * nominal - n
        sizes = [nominal - 1 if k < excess else nominal for k in range(7)]
        outs = shards(chopped)
        assert [os.path.basename(p) for p in outs] == ["part_%05d_of_00007.hdf5" % k for k in range(7)], outs
        at = 0
        for k, p in enumerate(outs):
            got = read_fixed([p])
            for key in FIXED:
                assert np.array_equal(got[key], src[key][at:at + sizes[k]]), (p, key)
                assert got[key].dtype == src[key].dtype, (p, key)
            at += sizes[k]
        assert at == n and excess > 0
        print("chop: %d samples -> 7 shards of %s" % (n, sizes))
        run("chop", fixed, os.path.join(tmp, "too_many"), "--shards", str(n + 1), expect=2)

        # to-varlength: per sample as convert_fixed2variable.py.
        var = os.path.join(tmp, "varlength")
        run("to-varlength", chopped, var, "--jobs", "2")
        ref_rows = to_var(src)
        got_rows = [r for p in shards(var) for r in read_var(p)]
        assert got_rows == ref_rows
        print("to-varlength: %d samples equal" % len(got_rows))

        # shuffle: random.Random(24) over the (shard, index) pairs; each output shard keeps its size and name.
        shuffled = os.path.join(tmp, "shuffled")
        run("shuffle", var, shuffled)
        per_shard = [read_var(p) for p in shards(var)]
        pairs = [(s, i) for s in range(len(per_shard)) for i in range(len(per_shard[s]))]
        random.Random(24).shuffle(pairs)
        at = 0
        for k, p in enumerate(shards(shuffled)):
            assert os.path.basename(p) == os.path.basename(shards(var)[k])
            got = read_var(p)
            want = [per_shard[s][i] for s, i in pairs[at:at + len(per_shard[k])]]
            assert got == want, p
            at += len(got)
        assert at == len(pairs)
        assert read_var(shards(shuffled)[0]) != per_shard[0]
        print("shuffle: %d samples in %d shards equal the reference order" % (at, len(per_shard)))
        other = os.path.join(tmp, "shuffled7")
        run("shuffle", var, other, "--seed", "7")
        assert read_var(shards(other)[0]) != read_var(shards(shuffled)[0])
        assert not os.path.exists(os.path.join(shuffled, ".shuffle-spill"))

        # pick-eval: rows int(i*N/count), fixed layout kept; to varlength afterwards.
        picked = os.path.join(tmp, "eval", "part_eval_10k.hdf5")
        run("pick-eval", fixed, picked, "--count", "50")
        got = read_fixed([picked])
        rows = [int(i * n / 50) for i in range(50)]
        for key in FIXED:
            assert np.array_equal(got[key], src[key][rows]), key
        run("pick-eval", fixed, os.path.join(tmp, "x.hdf5"), "--count", str(n + 1), expect=2)
        print("pick-eval: 50 of %d rows equal" % n)

        # split4bin --shards (Samsung's run_split_and_chop_hdf5_files.py): bins 1-32, 33-64, 65-96, 97-128
        # by sum(input_mask), input order kept, each bin chopped into 3 files part_<i>_of_3.hdf5.
        binned = os.path.join(tmp, "4bin")
        run("split4bin", fixed, binned, "--shards", "3")
        lengths = src["input_mask"].sum(axis=1)
        for b, edge in enumerate([32, 64, 96, 128]):
            rows = np.nonzero((lengths > edge - 32) & (lengths <= edge))[0]
            nominal = math.ceil(len(rows) / 3)
            excess = 3 * nominal - len(rows)
            at = 0
            for k in range(3):
                size = nominal - 1 if k < excess else nominal
                got = read_fixed([os.path.join(binned, str(edge), "part_%d_of_3.hdf5" % k)])
                for key in FIXED:
                    assert np.array_equal(got[key], src[key][rows[at:at + size]]), (edge, k, key)
                at += size
            assert at == len(rows) > 0
        print("split4bin --shards 3: Samsung's bins and shards equal")


main()
