#!/usr/bin/env python3
"""`bert-data prepare` end to end on the fixture text (4 parts + an eval text, seq 128 / 20):
NVIDIA's folder layout with every step's output, the training parts equal to the reference's
arrays, the eval rows int(i*N/count) of eval_all, .chk files that `verify --chk` accepts; then
resumability: a rerun redoes nothing, a half-written step (NAME.partial) and a missing part are
redone and nothing else."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA, FIXTURES = sys.argv[1], sys.argv[2]


def run(*args, expect=0):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
    return p


def files(d):
    return sorted(f for f in os.listdir(d) if not f.startswith("."))


def mtimes(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            out[p] = os.stat(p).st_mtime_ns
    return out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        eval_txt = os.path.join(tmp, "eval.txt")
        shutil.copy(os.path.join(FIXTURES, "text", "part-00001-of-00004"), eval_txt)
        out = os.path.join(tmp, "bert_data")
        args = ["prepare", "--text", os.path.join(FIXTURES, "text"), "--eval-text", eval_txt, "--vocab",
                os.path.join(FIXTURES, "vocab.txt"), "--out", out, "--jobs", "2", "--shards", "5", "--eval-count", "20",
                "--max-seq-length", "128", "--max-predictions-per-seq", "20"]
        p = run(*args)
        assert "GB free" in p.stdout, p.stdout
        h = os.path.join(out, "hdf5")
        t = os.path.join(h, "training-4320")
        assert files(os.path.join(h, "training")) == ["part-%05d-of-00004.hdf5" % k for k in range(4)]
        for d in ["hdf5_4320_shards_uncompressed", "hdf5_4320_shards_varlength", "hdf5_4320_shards_varlength_shuffled"]:
            assert files(os.path.join(t, d)) == ["part_%05d_of_00005.hdf5" % k for k in range(5)], d
        assert files(os.path.join(h, "eval")) == ["eval_all.hdf5", "part_eval_10k.hdf5"]
        assert files(os.path.join(h, "eval_varlength")) == ["part_eval_10k.hdf5"]
        assert files(os.path.join(out, "packed_data")) == ["part_%05d" % k for k in range(5)]
        with h5py.File(os.path.join(FIXTURES, "expected", "seq128.hdf5"), "r") as exp, \
                h5py.File(os.path.join(h, "training", "part-00002-of-00004.hdf5"), "r") as got:
            assert np.array_equal(got["input_ids"][...], exp["part-00002-of-00004"]["input_ids"][...])
            n_eval = exp["part-00001-of-00004"]["input_ids"].shape[0]
            with h5py.File(os.path.join(h, "eval", "part_eval_10k.hdf5"), "r") as ev:
                rows = [int(i * n_eval / 20) for i in range(20)]
                assert np.array_equal(ev["masked_lm_ids"][...], exp["part-00001-of-00004"]["masked_lm_ids"][...][rows])
        chk = open(os.path.join(h, "4320_shards_varlength.chk")).read().splitlines()
        assert len(chk) == 5 and chk[0].startswith("part_00000_of_00005.hdf5\t"), chk
        run("verify", os.path.join(t, "hdf5_4320_shards_varlength"), "--chk", os.path.join(h, "4320_shards_varlength.chk"))
        run("verify", os.path.join(h, "eval_varlength"), "--chk", os.path.join(h, "eval_varlength.chk"))
        run("verify", os.path.join(out, "packed_data"), "--seq-len", "128")
        print("prepare: layout, arrays, eval picks and checksums as the reference")

        # A rerun redoes nothing.
        before = mtimes(out)
        p = run(*args)
        assert p.stdout.count("done before") == 10, p.stdout  # create + 9 steps
        assert mtimes(out) == before
        # A killed shuffle (its .partial folder) and a missing part are redone, nothing else.
        shuffled = os.path.join(t, "hdf5_4320_shards_varlength_shuffled")
        shutil.rmtree(shuffled)
        os.makedirs(shuffled + ".partial")
        open(os.path.join(shuffled + ".partial", "part_00000_of_00005.hdf5"), "w").write("half")
        os.remove(os.path.join(h, "training", "part-00003-of-00004.hdf5"))
        p = run(*args)
        assert "create: 1 part(s) written, 3 done before" in p.stdout, p.stdout
        assert "shuffle -> " in p.stdout and "chop: done before" in p.stdout, p.stdout
        assert not os.path.exists(shuffled + ".partial")
        run("verify", shuffled)
        after = mtimes(out)
        changed = sorted(os.path.relpath(k, out) for k in after if before.get(k) != after[k])
        assert all("shuffled" in c or "part-00003" in c for c in changed), changed
        print("prepare: resumed (%d files rewritten)" % len(changed))


main()
