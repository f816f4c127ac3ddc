#!/usr/bin/env python3
"""The anchor beside rooftop's collectives: torch.distributed's NCCL on the same GPUs, the same
sizes and the same conventions as rooftop's collectives suite (nccl-tests'): all_reduce of
SIZE bytes on every rank, all_gather into a SIZE-byte buffer (SIZE/n from each rank),
reduce_scatter of a SIZE-byte buffer; bus bandwidth = SIZE / time x (2(n-1)/n for
all_reduce, (n-1)/n for the other two). Out of place, bf16; each size timed as `iterations`
calls queued back to back after a warm-up, the best of `rounds`.

usage: torchrun-free: python3 ci/torch-nccl-anchor.py OUT.json [--ranks N] [--sizes 1K,...]"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def worker(rank, n, sizes, out, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n, device_id=torch.device("cuda", rank))
    rows = []
    for name in ("all_reduce", "all_gather", "reduce_scatter"):
        for label in sizes:
            size = parse_size(label)
            elems = max(size // 2 // n * n, n)
            big = torch.randn(elems, device="cuda", dtype=torch.bfloat16)
            small = torch.randn(elems // n, device="cuda", dtype=torch.bfloat16)
            out_big = torch.empty_like(big)
            call = {"all_reduce": lambda: dist.all_reduce(big),
                    "all_gather": lambda: dist.all_gather_into_tensor(out_big, small),
                    "reduce_scatter": lambda: dist.reduce_scatter_tensor(small, big)}[name]
            iterations = max(5, min(1000, int(2e9 / max(size, 1))))
            for _ in range(5):
                call()
            torch.cuda.synchronize()
            best = float("inf")
            for _ in range(5):
                dist.barrier()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(iterations):
                    call()
                torch.cuda.synchronize()
                best = min(best, (time.perf_counter() - t0) / iterations)
            factor = 2 * (n - 1) / n if name == "all_reduce" else (n - 1) / n
            rows.append({"collective": name, "size": label, "bytes": elems * 2, "seconds": best,
                         "busbw_gb_s": elems * 2 / best * factor / 1e9})
            del big, small, out_big
    if rank == 0:
        json.dump({"anchor": f"torch {torch.__version__} torch.distributed NCCL {torch.cuda.nccl.version()}",
                   "ranks": n, "dtype": "bf16", "results": rows}, open(out, "w"), indent=1)
        for r in rows:
            print(f"{r['collective']:15s} {r['size']:>5s} {r['seconds'] * 1e6:10.1f} us  busbw {r['busbw_gb_s']:8.1f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=torch.cuda.device_count())
    p.add_argument("--sizes", default="1K,4K,16K,64K,256K,1M,4M,16M,64M,256M,1G,4G")
    a = p.parse_args()
    mp.spawn(worker, args=(a.ranks, a.sizes.split(","), a.out, 29517), nprocs=a.ranks)
