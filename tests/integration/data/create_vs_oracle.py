#!/usr/bin/env python3
"""`bert-data create` against the reference generator: the committed expected arrays
(tests/fixtures/data_prep/make_fixtures.sh ran google-research's create_pretraining_data.py under
Python 3.7 on the same text parts and vocab) must be equal, every field of every instance, for
seq 512 / 76 predictions and 128 / 20; the parts run in parallel (--jobs 2) and one by one.
Also: invalid UTF-8 is one error naming the file and byte offset, exit 2, and nothing is left
that looks like output."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA, FIXTURES = sys.argv[1], sys.argv[2]
FIELDS = ["input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids", "next_sentence_labels"]
DTYPES = {"input_ids": "int16", "input_mask": "int8", "segment_ids": "int8", "masked_lm_positions": "int16",
          "masked_lm_ids": "int16", "next_sentence_labels": "int8"}


def run(*args, expect=0):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
    return p


def compare(out_dir, seq, pred):
    with h5py.File(os.path.join(FIXTURES, "expected", "seq%d.hdf5" % seq), "r") as exp:
        parts = sorted(exp.keys())
        assert len(parts) == 4
        total = 0
        for part in parts:
            with h5py.File(os.path.join(out_dir, part + ".hdf5"), "r") as got:
                assert sorted(got.keys()) == sorted(FIELDS), (part, list(got.keys()))
                n = exp[part]["next_sentence_labels"].shape[0]
                assert n > 0
                for k in FIELDS:
                    e, g = exp[part][k][...], got[k][...]
                    assert str(g.dtype) == DTYPES[k], (part, k, g.dtype)
                    assert g.shape == e.shape, (part, k, g.shape, e.shape)
                    if not np.array_equal(g, e):
                        bad = np.nonzero((g != e).reshape(n, -1).any(axis=1))[0]
                        raise AssertionError("%s seq %d: %s differs in %d of %d instances, first %d:\n got %s\n exp %s"
                                             % (part, seq, k, len(bad), n, bad[0], g[bad[0]].tolist(), e[bad[0]].tolist()))
                total += n
        print("seq %d / %d: %d instances in %d parts equal the reference's" % (seq, pred, total, len(parts)))


def main():
    text, vocab = os.path.join(FIXTURES, "text"), os.path.join(FIXTURES, "vocab.txt")
    with tempfile.TemporaryDirectory() as tmp:
        for seq, pred, jobs in [(512, 76, "2"), (128, 20, "1")]:
            out = os.path.join(tmp, "seq%d" % seq)
            args = ["create", text, out, "--vocab", vocab, "--jobs", jobs]
            if seq != 512:
                args += ["--max-seq-length", str(seq), "--max-predictions-per-seq", str(pred)]
            run(*args)
            compare(out, seq, pred)
            # Existing outputs are refused unless --resume, which keeps them.
            p = run(*args, expect=2)
            assert "already exists" in p.stderr, p.stderr
            before = os.path.getmtime(os.path.join(out, "part-00000-of-00004.hdf5"))
            os.remove(os.path.join(out, "part-00001-of-00004.hdf5"))
            run(*args, "--resume")
            assert os.path.getmtime(os.path.join(out, "part-00000-of-00004.hdf5")) == before
            compare(out, seq, pred)

        # Invalid UTF-8: one clear error with the byte offset, exit 2, no output set left behind (at most the
        # finished part in OUT.partial, which the error names for --resume).
        bad_dir = os.path.join(tmp, "bad")
        os.makedirs(bad_dir)
        shutil.copy(os.path.join(text, "part-00001-of-00004"), os.path.join(bad_dir, "a"))
        good = "Good line.\r\nSecond caf\u00e9 line.\n".encode("utf-8")
        with open(os.path.join(bad_dir, "b"), "wb") as f:
            f.write(good + b"bad \xe9t\xc3\n")
        out = os.path.join(tmp, "bad_out")
        p = run("create", bad_dir, out, "--vocab", vocab, "--jobs", "2", expect=2)
        msg = p.stderr.strip().splitlines()[-1]
        want = "%s:3: invalid UTF-8 at byte offset %d" % (os.path.join(bad_dir, "b"), len(good) + 4)
        assert want in msg, (msg, want)
        assert "Traceback" not in p.stderr
        assert not os.path.exists(out), os.listdir(out)
        if os.path.exists(out + ".partial"):
            assert os.listdir(out + ".partial") == ["a.hdf5"], os.listdir(out + ".partial")
            assert "1 finished output(s) kept in %s.partial" % out in msg, msg
        # A vocabulary without [MASK] is named.
        novocab = os.path.join(tmp, "vocab_nomask.txt")
        with open(vocab, encoding="utf-8") as f:
            words = [w for w in f.read().split("\n") if w and w != "[MASK]"]
        with open(novocab, "w", encoding="utf-8") as f:
            f.write("\n".join(words) + "\n")
        p = run("create", os.path.join(text, "part-00003-of-00004"), os.path.join(tmp, "nm"), "--vocab", novocab,
                expect=2)
        assert "has no [MASK] token" in p.stderr and novocab in p.stderr, p.stderr


main()
