#!/usr/bin/env python3
"""Throughput and peak memory of `gdrcheck analyze` on a generated multi-GB NCCL
log of a 4,096-rank job, against `grep -c GDRDMA` on the same file, in one run.

Usage: bench/analyze_vs_grep.py [--gib 2] [--rounds 3] [--build build] [--dir /dev/shm]
                                [--kind repeating|unique|both]

The log is made of the line shapes of real NCCL 2.18-2.21 INFO logs (see
tests/data/nccl-logs): the version line, NET/IB device list, per-channel
[send]/[receive] NET lines with GDRDMA (and a share without), P2P/SHM lines,
ring summaries and Init COMPLETE lines, for 512 hosts x 8 GPUs, repeated over
communicators until the file reaches the requested size. Peak memory of each
analyze run is its own ru_maxrss (os.wait4 on a posix_spawn'd child).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HOSTS, GPUS, CHANNELS = 512, 8, 16


def rank_block(comm, rank, unique=False):
    host = f"node{rank // GPUS:04d}"
    gpu = rank % GPUS
    # Repeating: one process per rank for the whole job, so each
    # communicator's lines repeat the first's. Unique: every communicator
    # comes from new processes and threads (a job that restarts or builds
    # sub-communicators), so no line repeats exactly.
    pid, tid = (100000 + rank, 200000 + rank) if not unique else (100000 + rank + comm * 7919, 300000 + rank * 13 + comm)
    pre = f"{host}:{pid}:{tid} [{gpu}] NCCL INFO "
    peer = (rank + GPUS) % (HOSTS * GPUS)
    lines = [pre + f"comm 0x{comm:x}{rank:04x} rank {rank} nRanks {HOSTS * GPUS} nNodes {HOSTS} localRanks {GPUS} localRank {gpu} MNNVL 0"]
    for ch in range(CHANNELS):
        # One NIC in 16 without GDR keeps the verdict at "partial" and the parser honest.
        gdr = "/GDRDMA" if (rank + ch) % 16 else ""
        lines.append(pre + f"Channel {ch:02d}/0 : {rank}[{gpu}] -> {peer}[{gpu}] [send] via NET/IB/{gpu}{gdr}")
        lines.append(pre + f"Channel {ch:02d}/0 : {peer}[{gpu}] -> {rank}[{gpu}] [receive] via NET/IB/{gpu}{gdr}")
        lines.append(pre + f"Channel {ch:02d}/0 : {rank}[{gpu}] -> {rank + 1 - 2 * (gpu % 2)}[{gpu ^ 1}] via P2P/CUMEM/read")
    lines.append(pre + "Connected all rings, use ring PXN 0 GDR 1")
    lines.append(pre + f"ncclCommInitRank comm 0x{comm:x}{rank:04x} rank {rank} nranks {HOSTS * GPUS} cudaDev {gpu} nvmlDev {gpu} busId {0x18000 + gpu * 0x10000:x} commId 0x{comm:x} - Init COMPLETE")
    return "\n".join(lines) + "\n"


def generate(path, size, unique=False):
    head = "node0000:100000:200000 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    head += "node0000:100000:200000 [0] NCCL INFO NET/IB : Using " + " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(8)) + " [RO]; OOB ib0:10.0.0.1<0>\n"
    written, comm = 0, 1
    with open(path, "w") as f:
        f.write(head)
        while written < size:
            block = "".join(rank_block(comm, r, unique) for r in range(HOSTS * GPUS))
            f.write(block)
            written += len(block)
            comm += 1
    return os.path.getsize(path)


def timed(cmd):
    """Wall time, peak RSS (KiB) and exit code of one run. posix_spawn + wait4
    give the RSS of that child; posix_spawn shares this script's memory until
    the exec, and the kernel counts that memory in the child's peak too, so
    the log is generated in another process and this one stays small."""
    # Output goes to a real file: GNU grep stops at the first match when its
    # output is /dev/null, even with -c.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                            (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - t0
        err.seek(0)
        return elapsed, usage.ru_maxrss, os.waitstatus_to_exitcode(status), err.read()


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--generate":
        generate(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "unique")
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default="/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp")
    ap.add_argument("--kind", choices=["repeating", "unique", "both"], default="both",
                    help="lines repeating across communicators, no line repeating exactly, or both in turn")
    a = ap.parse_args()
    gdrcheck = os.path.join(a.build, "gdrcheck")
    if not os.access(gdrcheck, os.X_OK):
        sys.exit(f"build first: {gdrcheck} missing")
    # A quarter-size run first: peak memory must be the same at both sizes.
    kinds = ["repeating", "unique"] if a.kind == "both" else [a.kind]
    for kind in kinds:
        for gib in (a.gib / 4, a.gib):
            run(a, gdrcheck, gib, kind == "unique")


def run(a, gdrcheck, gib, unique):
    path = os.path.join(a.dir, "gdrcheck-bench-4096ranks.log")
    try:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", path, str(int(gib * (1 << 30))),
                        "unique" if unique else "repeating"], check=True)
        size = os.path.getsize(path)
        lines = int(subprocess.run(["wc", "-l", path], stdout=subprocess.PIPE, text=True).stdout.split()[0])
        kind = "no line repeating" if unique else "lines repeating across communicators"
        print(f"log: {path}, {size / (1 << 30):.2f} GiB, {lines:,} lines, {HOSTS * GPUS} ranks, {kind}")
        g_times, a_times = [], []
        a_rss = 0
        for _ in range(a.rounds):
            t, _, _, _ = timed(["grep", "-c", "GDRDMA", path])
            g_times.append(t)
            t, rss, code, err = timed([gdrcheck, "analyze", "--json", path])
            a_times.append(t)
            a_rss = max(a_rss, rss)
            if code not in (0, 1, 2):
                sys.exit(f"analyze failed: {err.decode()[:500]}")
        g, an = statistics.median(g_times), statistics.median(a_times)
        print(f"grep -c GDRDMA        median {g:.2f} s  ({size / g / 1e9:.2f} GB/s)")
        print(f"gdrcheck analyze      median {an:.2f} s  ({size / an / 1e9:.2f} GB/s), peak RSS {a_rss / 1024:.1f} MiB")
        print(f"ratio analyze/grep: {an / g:.2f}")
    finally:
        if os.path.exists(path):
            os.remove(path)


if __name__ == "__main__":
    main()
