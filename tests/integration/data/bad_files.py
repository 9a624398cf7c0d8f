#!/usr/bin/env python3
"""Bad shards (wrong dtype, missing dataset, id >= vocab, inconsistent lengths, truncated or not
HDF5 at all) make bert-data exit 2 with one message naming the file, the dataset and the sample;
never HDF5's error stack, a crash or a traceback."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA = sys.argv[1]


def expect_error(path, *needles, args=()):
    p = subprocess.run([BERT_DATA, "verify", path, "--vocab", "1024", *args], capture_output=True, text=True)
    assert p.returncode == 2, (path, p.returncode, p.stdout, p.stderr)
    err = p.stderr.strip().splitlines()
    assert len(err) == 1, p.stderr  # one message, no HDF5-DIAG stack
    assert err[0].startswith("bert-data: " + path), err[0]
    for n in needles:
        assert n in err[0], (n, err[0])
    print("ok:", err[0])


def main():
    with tempfile.TemporaryDirectory() as d:
        good_dir = os.path.join(d, "good")
        subprocess.run([BERT_DATA, "synth", "--out", good_dir, "--shards", "1", "--samples-per-shard", "200",
                        "--eval-samples", "0", "--vocab", "1024", "--seq-len", "128", "--format", "fixed"],
                       check=True, capture_output=True)
        good = os.path.join(good_dir, "train", "part_00000_of_00001.hdf5")

        def variant(name, edit):
            path = os.path.join(d, name)
            shutil.copy(good, path)
            with h5py.File(path, "r+") as f:
                edit(f)
            return path

        def retype(f, name, dtype):
            data = f[name][:]
            del f[name]
            f.create_dataset(name, data=data.astype(dtype))

        expect_error(variant("wrong_dtype.hdf5", lambda f: retype(f, "input_ids", np.int32)),
                     "dataset input_ids", "dtype int32, expected int16")
        expect_error(variant("float_labels.hdf5", lambda f: retype(f, "next_sentence_labels", np.float32)),
                     "dataset next_sentence_labels", "dtype float32, expected int8")
        expect_error(variant("missing.hdf5", lambda f: f.__delitem__("masked_lm_ids")), "dataset masked_lm_ids: missing")

        def big_id(f):
            ids = f["input_ids"][:]
            ids[17, 3] = 1500
            f["input_ids"][...] = ids
        expect_error(variant("big_id.hdf5", big_id), "dataset input_ids, sample 17", "id 1500",
                     "vocab size 1024")

        def bad_pos(f):
            pos = f["masked_lm_positions"][:]
            pos[5, 0] = 127
            f["masked_lm_positions"][...] = pos
        expect_error(variant("bad_pos.hdf5", bad_pos), "dataset masked_lm_positions, sample 5", "outside [1, length")

        def bad_mask(f):
            m = f["input_mask"][:]
            m[9, 0] = 0
            f["input_mask"][...] = m
        expect_error(variant("bad_mask.hdf5", bad_mask), "dataset input_mask, sample 9", "ones then zeros")

        def short_labels(f):
            data = f["next_sentence_labels"][:10]
            del f["next_sentence_labels"]
            f.create_dataset("next_sentence_labels", data=data)
        expect_error(variant("short.hdf5", short_labels), "dataset next_sentence_labels", "10 samples, input_ids has 200")

        size = os.path.getsize(good)
        for keep in (size // 2, 4096, 100):
            path = os.path.join(d, f"truncated_{keep}.hdf5")
            with open(good, "rb") as src, open(path, "wb") as dst:
                dst.write(src.read(keep))
            expect_error(path)
        text = os.path.join(d, "text.hdf5")
        with open(text, "w") as f:
            f.write("not hdf5\n")
        expect_error(text, "not an HDF5 file")
        expect_error(good, "sequence length 128, expected 64", args=("--seq-len", "64"))
        # a directory with one bad shard among good ones names the bad shard
        mixed = os.path.join(d, "mixed")
        os.makedirs(mixed)
        shutil.copy(good, os.path.join(mixed, "part_00000_of_00002.hdf5"))
        shutil.copy(os.path.join(d, "big_id.hdf5"), os.path.join(mixed, "part_00001_of_00002.hdf5"))
        p = subprocess.run([BERT_DATA, "verify", mixed, "--vocab", "1024"], capture_output=True, text=True)
        assert p.returncode == 2 and "part_00001_of_00002.hdf5: dataset input_ids, sample 17" in p.stderr, p.stderr
        # bad command lines are exit 2 too
        p = subprocess.run([BERT_DATA, "synth", "--out", d, "--format", "zip"], capture_output=True, text=True)
        assert p.returncode == 2, p
        p = subprocess.run([BERT_DATA, "info", os.path.join(d, "nothing")], capture_output=True, text=True)
        assert p.returncode == 2 and "no such file" in p.stderr, p.stderr
    print("OK")


if __name__ == "__main__":
    main()
