#!/usr/bin/env python3
"""`bert-data from-tfrecord` on a TFRecord written by the reference generator (the oracle run of
tests/fixtures/data_prep/make_fixtures.sh, committed): the HDF5 it writes equals the oracle's
arrays (fixed) and their variable-length form; then corrupt files give one error naming the
file and the record's byte offset, exit 2, and no output: a flipped data byte (CRC-32C of the
data), a flipped length byte (CRC-32C of the length), a truncated file, and a record with valid
CRCs that is not a tf.train.Example."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA, FIXTURES = sys.argv[1], sys.argv[2]
RECORD = os.path.join(FIXTURES, "tfrecord", "part-00003-of-00004.seq128.tfrecord")
FIXED = ["input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids", "next_sentence_labels"]


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def masked(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    head = struct.pack("<Q", len(payload))
    return head + struct.pack("<I", masked(crc32c(head))) + payload + struct.pack("<I", masked(crc32c(payload)))


def run(*args, expect=0):
    p = subprocess.run([BERT_DATA, *args], capture_output=True, text=True)
    assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
    return p


def main():
    with tempfile.TemporaryDirectory() as tmp:
        with h5py.File(os.path.join(FIXTURES, "expected", "seq128.hdf5"), "r") as f:
            exp = {k: f["part-00003-of-00004"][k][...] for k in FIXED}
        n = len(exp["next_sentence_labels"])
        out = os.path.join(tmp, "fixed")
        run("from-tfrecord", RECORD, out, "--vocab", "1496")
        with h5py.File(os.path.join(out, "part-00003-of-00004.seq128.hdf5"), "r") as f:
            for k in FIXED:
                assert np.array_equal(f[k][...], exp[k]), k
                assert f[k].dtype == exp[k].dtype, (k, f[k].dtype)
        out = os.path.join(tmp, "var")
        run("from-tfrecord", os.path.dirname(RECORD), out, "--format", "varlength")
        with h5py.File(os.path.join(out, "part-00003-of-00004.seq128.hdf5"), "r") as f:
            for i in range(n):
                length = int(exp["input_mask"][i].sum())
                nm = int(np.count_nonzero(exp["masked_lm_positions"][i]))
                assert list(f["input_ids"][i]) == list(exp["input_ids"][i][:length])
                assert list(f["masked_lm_ids"][i]) == list(exp["masked_lm_ids"][i][:nm])
        print("from-tfrecord: %d oracle records equal (fixed and varlength)" % n)

        data = open(RECORD, "rb").read()
        first_len = struct.unpack("<Q", data[:8])[0]
        second = 12 + first_len + 4
        cases = {
            "data byte": (data[:second + 20] + bytes([data[second + 20] ^ 1]) + data[second + 21:],
                          "record at byte offset %d: data crc32c mismatch" % second),
            "length byte": (data[:second] + bytes([data[second] ^ 4]) + data[second + 1:],
                            "record at byte offset %d: length crc32c mismatch" % second),
            "truncated": (data[:-3], "truncated"),
            "not an Example": (data + frame(b"\x0a\x7fx"), "record %d (byte offset %d): feature (all): not a "
                               "tf.train.Example" % (n, len(data))),
            "missing feature": (data + frame(b""), "record %d (byte offset %d): feature input_ids: missing" % (n, len(data))),
        }
        for name, (blob, want) in cases.items():
            d = os.path.join(tmp, "bad_" + name.replace(" ", "_"))
            os.makedirs(d)
            path = os.path.join(d, "part-00000")
            with open(path, "wb") as f:
                f.write(blob)
            o = os.path.join(tmp, "out_" + name.replace(" ", "_"))
            p = run("from-tfrecord", d, o, expect=2)
            assert path in p.stderr and want in p.stderr, (name, p.stderr, want)
            assert "Traceback" not in p.stderr and not os.path.exists(o) and not os.path.exists(o + ".partial"), name
        print("from-tfrecord: %d kinds of corruption reported with the byte offset" % len(cases))
        shutil.rmtree(tmp, ignore_errors=True)


main()
