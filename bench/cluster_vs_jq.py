#!/usr/bin/env python3
"""`gdrcheck cluster --from DIR --json` on 1,000 and 10,000 node reports, against
`jq -s .` merging the same files, in one run: the ratio of the medians, and the
time per node at both sizes (linearity).

Usage: bench/cluster_vs_jq.py [--nodes 1000,10000] [--rounds 3] [--build build] [--dir /dev/shm]

The reports are real: `gdrcheck node --root R --json` on fixture roots built by
gdrcheck-mkroot from tests/data/nodes (DGX H100-like healthy and with
peermem-missing, acs-redirect, nic-slow, port-down, stray-nccl-conf; DGX A100-like),
most nodes healthy as in a real cluster. Each copy gets its own host name, and
one node in 50 a different NIC firmware and one in 200 another kernel, so the
outlier pass has real work. jq reads the files through `find -exec cat {} +`
(a glob of 10,000 names is close to ARG_MAX) and writes the merged array, as
gdrcheck writes its JSON; both outputs go to /dev/null.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# (node description, variants, share of the cluster in 1,000)
MIX = [
    ("dgx-h100", [], 900),
    ("dgx-h100", ["peermem-missing"], 20),
    ("dgx-h100", ["acs-redirect"], 20),
    ("dgx-h100", ["nic-slow"], 20),
    ("dgx-h100", ["port-down"], 10),
    ("dgx-h100", ["stray-nccl-conf"], 10),
    ("dgx-a100", [], 20),
]


def real_reports(build, tmp):
    out = []
    for name, variants, share in MIX:
        root = os.path.join(tmp, "root-" + "-".join([name] + variants))
        cmd = [os.path.join(build, "gdrcheck-mkroot"), f"tests/data/nodes/{name}.json", root]
        for v in variants:
            cmd += ["--variant", v]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        r = subprocess.run([os.path.join(build, "gdrcheck"), "node", "--root", root, "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode not in (0, 1, 2, 3) or not r.stdout:
            sys.exit(f"gdrcheck node failed on {root}: {r.stderr.decode()[:300]}")
        out.append((json.loads(r.stdout), share))
    return out


def generate(reports, nodes, directory):
    os.makedirs(directory)
    pattern = [doc for doc, share in reports for _ in range(share)]
    size = 0
    for i in range(nodes):
        doc = json.loads(json.dumps(pattern[i % len(pattern)]))
        doc["host"] = f"gpu{i:05d}"
        if i % 50 == 7:
            for nic in doc["nics"]:
                nic["firmware"] = "28.41.1000"
        if i % 200 == 11:
            doc["kernel"] = "6.8.0-1015-nvidia"
        text = json.dumps(doc, indent=2) + "\n"
        size += len(text)
        with open(os.path.join(directory, f"gpu{i:05d}.json"), "w") as f:
            f.write(text)
    return size


def timed(cmd, shell=False):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, shell=shell, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t0, r


def measure(gdrcheck, directory, rounds):
    jq = f"find '{directory}' -name '*.json' -exec cat {{}} + | jq -s . > /dev/null"
    g_times, j_times = [], []
    for _ in range(rounds):
        t, r = timed([gdrcheck, "cluster", "--from", directory, "--json"])
        if r.returncode not in (0, 1, 2):
            sys.exit(f"gdrcheck cluster failed ({r.returncode}): {r.stderr.decode()[:300]}")
        g_times.append(t)
        t, r = timed(jq, shell=True)
        if r.returncode != 0:
            sys.exit(f"jq failed: {r.stderr.decode()[:300]}")
        j_times.append(t)
    return statistics.median(g_times), statistics.median(j_times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", default="1000,10000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--dir", default="/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    gdrcheck = os.path.join(a.build, "gdrcheck")
    for b in ("gdrcheck", "gdrcheck-mkroot"):
        if not os.access(os.path.join(a.build, b), os.X_OK):
            sys.exit(f"build first: {a.build}/{b} missing")
    if not shutil.which("jq"):
        sys.exit("jq missing: apt-get install jq")
    tmp = tempfile.mkdtemp(prefix="gdrcheck-cluster-bench-", dir=a.dir)
    try:
        reports = real_reports(a.build, tmp)
        print(f"cores: {os.cpu_count()}, rounds: {a.rounds} (interleaved), medians")
        per_node = {}
        for n in (int(x) for x in a.nodes.split(",")):
            d = os.path.join(tmp, f"reports-{n}")
            size = generate(reports, n, d)
            g, j = measure(gdrcheck, d, a.rounds)
            per_node[n] = g / n
            print(f"{n:>6} nodes, {size / (1 << 20):.0f} MiB: gdrcheck cluster {g:.2f} s "
                  f"({g / n * 1e6:.0f} us/node), jq -s {j:.2f} s ({j / n * 1e6:.0f} us/node), "
                  f"ratio gdrcheck/jq {g / j:.2f}")
            shutil.rmtree(d)
        sizes = sorted(per_node)
        if len(sizes) > 1:
            print(f"linearity: time per node at {sizes[-1]} / at {sizes[0]} = "
                  f"{per_node[sizes[-1]] / per_node[sizes[0]]:.2f} (1.00 = linear)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
