#!/usr/bin/env python3
"""`bert-data pack` (global by default) through the binary, read back with h5py: every input
sequence appears exactly once in the output with its tokens, segments, masks and label (multisets
compared); no pack over --seq-len tokens or 3 sequences; the same seed gives the same files,
another seed another order; --shards sets the output count; global packs at least as densely as
--per-shard; mixed sequence lengths and an unreadable shard give one error naming the file, exit 2."""
import os
import subprocess
import sys
import tempfile

import h5py

BERT_DATA = sys.argv[1]


def run(*args, check=True):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    if check:
        assert p.returncode == 0, (args, p.returncode, p.stdout, p.stderr)
    return p


def synth(out, fmt, seq_len, shards, n):
    run("synth", "--out", out, "--format", fmt, "--shards", str(shards), "--samples-per-shard", str(n),
        "--eval-samples", "0", "--vocab", "1024", "--seq-len", str(seq_len), "--seed", "3")
    return os.path.join(out, "train")


def shards(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("part"))


def unpacked_sequences(d):
    out = []
    for path in shards(d):
        with h5py.File(path, "r") as f:
            for i in range(len(f["next_sentence_labels"])):
                out.append((tuple(f["input_ids"][i]), tuple(f["segment_ids"][i]), tuple(f["masked_lm_positions"][i]),
                            tuple(f["masked_lm_ids"][i]), int(f["next_sentence_labels"][i])))
    return out


def packed_sequences(d, seq_len):
    """Sequences of packed shards in file order, masked positions made relative to the sequence."""
    out = []
    for path in shards(d):
        with h5py.File(path, "r") as f:
            for p in range(len(f["input_ids"])):
                ids, seg, lens = f["input_ids"][p], f["segment_ids"][p], f["packed_input_len"][p]
                pos, mids, mlens = f["masked_lm_positions"][p], f["masked_lm_ids"][p], f["packed_masked_lm_len"][p]
                nsp = f["next_sentence_labels"][p]
                assert 1 <= len(lens) <= 3, (path, p, lens)
                assert sum(lens) == len(ids) <= seq_len, (path, p, lens)
                t = m = 0
                for k, (n, nm) in enumerate(zip(lens, mlens)):
                    out.append((tuple(ids[t:t + n]), tuple(seg[t:t + n]), tuple(int(x) - t for x in pos[m:m + nm]),
                                tuple(mids[m:m + nm]), int(nsp[k])))
                    t += n
                    m += nm
    return out


def rate(stdout):
    return float(stdout.split("(")[1].split(" sequences/pack")[0])


def expect_error(args, needle):
    p = run(*args, check=False)
    assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
    assert "HDF5-DIAG" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("bert-data:")]
    assert len(errors) == 1 and needle in errors[0], p.stderr
    print("ok:", errors[0])


def main():
    with tempfile.TemporaryDirectory() as d:
        train = synth(os.path.join(d, "s"), "varlength", 128, 3, 500)
        want = sorted(unpacked_sequences(train))

        a = run("pack", train, os.path.join(d, "a"), "--seq-len", "128", "--vocab", "1024", "--seed", "9").stdout
        assert a.startswith("pack: 1500 sequences -> "), a
        assert "pack: global," in a, a
        assert [os.path.basename(f) for f in shards(os.path.join(d, "a"))] == ["part_00000", "part_00001", "part_00002"]
        got_a = packed_sequences(os.path.join(d, "a"), 128)
        assert sorted(got_a) == want, "global pack lost, duplicated or changed sequences"

        run("pack", train, os.path.join(d, "b"), "--seq-len", "128", "--vocab", "1024", "--seed", "9")
        assert packed_sequences(os.path.join(d, "b"), 128) == got_a, "same seed, different output"
        run("pack", train, os.path.join(d, "c"), "--seq-len", "128", "--vocab", "1024", "--seed", "10",
            "--shards", "2")
        assert len(shards(os.path.join(d, "c"))) == 2
        got_c = packed_sequences(os.path.join(d, "c"), 128)
        assert got_c != got_a and sorted(got_c) == want, "another seed: same order or other sequences"

        per = run("pack", train, os.path.join(d, "per"), "--seq-len", "128", "--vocab", "1024", "--per-shard").stdout
        assert sorted(packed_sequences(os.path.join(d, "per"), 128)) == want
        assert rate(a) >= rate(per), (a, per)
        print(f"ok: global {rate(a):.4f} >= per-shard {rate(per):.4f} sequences/pack")

        # mixed sequence lengths: fixed shards of width 128 and 64; a varlength shard of seq-len 256
        fixed = synth(os.path.join(d, "f128"), "fixed", 128, 1, 50)
        narrow = shards(synth(os.path.join(d, "f64"), "fixed", 64, 1, 50))[0]
        mixed = os.path.join(d, "mixed")
        os.makedirs(mixed)
        os.symlink(shards(fixed)[0], os.path.join(mixed, "part_0"))
        os.symlink(narrow, os.path.join(mixed, "part_1"))
        expect_error(["pack", mixed, os.path.join(d, "m"), "--seq-len", "128"], "part_1")
        longer = shards(synth(os.path.join(d, "v256"), "varlength", 256, 1, 100))[0]
        expect_error(["pack", longer, os.path.join(d, "l"), "--seq-len", "128"], longer)
        junk = os.path.join(d, "junk", "part_00000")
        os.makedirs(os.path.dirname(junk))
        with open(junk, "w") as f:
            f.write("not hdf5")
        expect_error(["pack", os.path.dirname(junk), os.path.join(d, "j")], junk)
        jdir = os.path.join(d, "j")
        assert not os.path.isdir(jdir) or not shards(jdir), "output left behind after an error"
    print("OK")


if __name__ == "__main__":
    main()
