"""Compares two weights HDF5 files tensor by tensor: ‖a−b‖/‖b‖ < tol (absolute for tensors ~0)."""
import sys

import h5py
import numpy as np

a_path, b_path, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
worst = 0.0
names = []
with h5py.File(a_path, "r") as a, h5py.File(b_path, "r") as b:
    a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    assert names, "no tensors"
    for n in names:
        x, y = a[n][...].astype(np.float64), b[n][...].astype(np.float64)
        assert x.shape == y.shape, n
        err = np.linalg.norm(x - y) / max(np.linalg.norm(y), 1e-3)
        worst = max(worst, err)
        if err > tol:
            sys.exit(f"{n}: relative difference {err:.3g} > {tol}")
print(f"{len(names)} tensors agree: worst relative difference {worst:.3g}")
