"""Copies a variable-length eval HDF5 file with every sample's masked positions/ids emptied."""
import sys

import h5py
import numpy as np

src, dst = sys.argv[1], sys.argv[2]
with h5py.File(src, "r") as fin, h5py.File(dst, "w") as fout:
    for name, ds in fin.items():
        if name in ("masked_lm_positions", "masked_lm_ids"):
            out = fout.create_dataset(name, (ds.shape[0],), dtype=h5py.vlen_dtype(np.int16))
            for i in range(ds.shape[0]):
                out[i] = np.zeros(0, np.int16)
        else:
            fin.copy(ds, fout, name)
    for k, v in fin.attrs.items():
        fout.attrs[k] = v
