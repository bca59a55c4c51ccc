"""A jitted function as the block function of dask.array.map_blocks on a
dask.distributed cluster of worker processes on 127.0.0.1: each worker
compiles the function for the block shapes it meets (the function travels
as Python, by cloudpickle) and the result equals numpy's on the whole array.

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/python/dask_blocks.py
"""
import numpy as np
import dask.array as da
from dask.distributed import Client, LocalCluster

import unum


@unum.jit
def normalise(block):
    # Rows are whole in every block (chunks split axis 0 only), so the
    # per-row statistics of a block are those of the whole array.
    centred = block - block.mean(axis=1, keepdims=True)
    scale = np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-6)
    return np.tanh(centred / scale) * 0.5 + 0.5


def main():
    rng = np.random.default_rng(42)
    x = rng.normal(size=(1000, 64)).astype(np.float32)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        blocks = da.from_array(x, chunks=(300, 64))  # 300, 300, 300, 100 rows
        y = blocks.map_blocks(normalise, dtype=np.float32).compute()
        workers = len(client.scheduler_info()["workers"])
    want = normalise.__wrapped__(x)
    assert y.dtype == want.dtype and y.shape == want.shape
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    print("dask: %d workers, %d blocks, equal to numpy" % (workers, blocks.npartitions))


if __name__ == "__main__":
    main()
