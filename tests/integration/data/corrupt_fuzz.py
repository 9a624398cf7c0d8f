#!/usr/bin/env python3
"""Bit flips in the metadata and data of shards of every layout: bert-data verify either accepts
the file (the flip hit a value that is still valid) or exits 2 with one message naming the file;
never a crash, a hang or HDF5's error stack. Deterministic (fixed seed)."""
import os
import random
import subprocess
import sys
import tempfile

BERT_DATA = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 60


def main():
    rng = random.Random(20241121)
    outcomes = {0: 0, 2: 0}
    with tempfile.TemporaryDirectory() as d:
        for fmt in ("fixed", "varlength", "packed"):
            subprocess.run([BERT_DATA, "synth", "--out", os.path.join(d, fmt), "--format", fmt, "--shards", "1",
                            "--samples-per-shard", "200", "--eval-samples", "0", "--vocab", "1024", "--seq-len", "128"],
                           check=True, capture_output=True)
            train = os.path.join(d, fmt, "train")
            good = open(os.path.join(train, sorted(os.listdir(train))[0]), "rb").read()
            for r in range(ROUNDS):
                data = bytearray(good)
                span = 4096 if r % 2 == 0 else len(data)  # metadata region, or anywhere
                for _ in range(rng.choice((1, 4, 16))):
                    data[rng.randrange(span)] ^= 1 << rng.randrange(8)
                path = os.path.join(d, f"{fmt}_{r}.hdf5")
                with open(path, "wb") as f:
                    f.write(data)
                p = subprocess.run([BERT_DATA, "verify", path, "--vocab", "1024"], capture_output=True, text=True,
                                   timeout=30)
                lines = p.stderr.strip().splitlines()
                assert p.returncode in (0, 2), (path, p.returncode, p.stderr[-500:])
                if p.returncode == 2:
                    assert len(lines) == 1 and lines[0].startswith("bert-data: " + path), p.stderr[-500:]
                outcomes[p.returncode] += 1
                os.remove(path)
    assert outcomes[2] > ROUNDS, outcomes  # most flips are detected
    print("OK", outcomes)


if __name__ == "__main__":
    main()
