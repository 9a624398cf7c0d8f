#!/usr/bin/env python3
"""bert-data convert-checkpoint on the TensorFlow-written fixtures: h5py sees one float32 dataset
per weight, at the TF name, with TF's shape and the exact values; slots and global_step are gone.
Corrupt checkpoints exit 2 with one message."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BERT_DATA, TF = sys.argv[1], sys.argv[2]


def main():
    manifest = json.load(open(os.path.join(TF, "manifest.json")))
    with tempfile.TemporaryDirectory() as d:
        for name, m in manifest.items():
            out = os.path.join(d, name + ".h5")
            p = subprocess.run([BERT_DATA, "convert-checkpoint", os.path.join(TF, m["prefix"]), out, "--list"],
                               capture_output=True, text=True)
            assert p.returncode == 0, p.stderr
            assert "kernels are [in, out] row-major" in p.stdout, p.stdout
            values = h5py.File(os.path.join(TF, name + ".values.h5"), "r")["values"][:]
            weights = {t: info for t, info in m["tensors"].items()
                       if not t.endswith(("/LAMB", "/LAMB_1")) and t != "global_step"}
            with h5py.File(out, "r") as f:
                found = []
                f.visititems(lambda k, v: found.append(k) if isinstance(v, h5py.Dataset) else None)
                assert sorted(found) == sorted(weights), (len(found), len(weights))
                assert f.attrs["format"] == b"bert-weights-v1" or f.attrs["format"] == "bert-weights-v1"
                assert f.attrs["num_tensors"] == len(weights)
                for t, info in weights.items():
                    ds = f[t]
                    assert ds.dtype == np.float32 and list(ds.shape) == info["shape"], t
                    expect = values[info["offset"]:info["offset"] + ds.size].reshape(info["shape"])
                    assert np.array_equal(ds[()], expect), t
                    assert f"  {t} [{','.join(map(str, info['shape']))}]" in p.stdout
            print(f"ok: {name}: {len(weights)} weights")
        if "tiny_bert" in manifest:
            assert len([t for t in manifest["tiny_bert"]["tensors"] if "/LAMB" not in t and t != "global_step"]) == 46

        src = os.path.join(TF, manifest["tiny_bert"]["prefix"])
        for what, edit, needle in (
                ("magic", lambda idx, dat: flip(idx, os.path.getsize(idx) - 3), "bad table magic"),
                ("block crc", lambda idx, dat: flip(idx, 30), "crc32c mismatch"),
                ("tensor crc", lambda idx, dat: flip(dat, 64), "crc32c mismatch"),
                ("truncated data", lambda idx, dat: os.truncate(dat, 512), "truncated data"),
                ("truncated index", lambda idx, dat: os.truncate(idx, 20), "truncated")):
            prefix = os.path.join(d, "bad", "model.ckpt-7")
            shutil.rmtree(os.path.join(d, "bad"), ignore_errors=True)
            os.makedirs(os.path.join(d, "bad"))
            for ext in (".index", ".data-00000-of-00001"):
                shutil.copy(src + ext, prefix + ext)
            edit(prefix + ".index", prefix + ".data-00000-of-00001")
            out = os.path.join(d, "bad.h5")
            p = subprocess.run([BERT_DATA, "convert-checkpoint", prefix, out], capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            assert p.returncode == 2 and len(lines) == 1 and needle in lines[0], (what, p.returncode, p.stderr)
            assert not os.path.exists(out), what
            print(f"ok: {what}: {lines[0]}")
    print("OK")


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x40]))


if __name__ == "__main__":
    main()
