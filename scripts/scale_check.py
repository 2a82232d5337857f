"""Check SCALING.md's model on this machine: many Common Crawl-sized inputs, split into shards.

Builds (once) ``--files`` synthetic robotstxt files of ``--captures`` captures each, laid out as
``crawl-data/CC-MAIN-2026-47/segments/<seg>/robotstxt/CC-MAIN-...-<n>.warc.gz`` with a
``robotstxt.paths`` list, from the bench generator (scripts/make_bench_corpus.py: same status
mix, Common Crawl's record layout, corpus bodies from ../shared). Then times, wall clock:

1. one process over the whole list, ``--threads 1`` and ``--threads <cores>``;
2. ``--shards`` shards ``--shard i/N --threads 1``, one after another, into one --out;
3. the same shards all at once, into another --out;

checks that both sharded outputs equal the one-process output byte for byte, runs
``robots-census status`` on them, and prints a Markdown table (also written as JSON) of
wall time and CPU time (user + sys of the processes): on a shared machine the CPU time is
the number to trust.

Usage: scale_check.py [--bin target/release/robots-census] [--work scale-out]
                      [--files 200] [--captures 1000] [--shards 4]
"""

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import corpus_body_paths, gzip_member  # noqa: E402
from make_bench_corpus import CRAWL, Capture, warcinfo_record  # noqa: E402


def make_inputs(work, shared, files, captures, seed=20261123):
    """The input files and their list; skipped when the list is already there."""
    listing = work / "robotstxt.paths"
    if listing.exists() and len(listing.read_text().split()) == files:
        return listing
    bodies = [p.read_bytes() for p in corpus_body_paths(shared)]
    rng = random.Random(seed)
    order = list(range(len(bodies)))
    rng.shuffle(order)
    paths = []
    for f in range(files):
        seg = f"1731{f // 100:04d}00000.{f // 100}"
        name = f"CC-MAIN-20261110000000-20261111000000-{f:05d}.warc.gz"
        rel = Path("crawl-data") / CRAWL / "segments" / seg / "robotstxt" / name
        path = work / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as out:
            info_id, info = warcinfo_record(rng, name)
            out.write(gzip_member(info))
            for i in range(captures):
                cap = Capture(rng, f * captures + i, captures * files, bodies, order)
                for record in cap.records(info_id):
                    out.write(gzip_member(record))
        paths.append(str(path))
    listing.write_text("\n".join(paths) + "\n")
    return listing


def run_all(cmds):
    """Starts every command at once. Returns (wall seconds until the last ends, CPU
    seconds (user + sys) of all of them): on a shared machine the CPU time is the
    stable number, the wall time shows what the other tenants left."""
    started = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for c in cmds]
    cpu = 0.0
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(map(str, p.args))} exited {p.returncode}")
        cpu += usage.ru_utime + usage.ru_stime
    return time.monotonic() - started, cpu


def run(cmd):
    return run_all([cmd])


def digest(out):
    """(relative path -> sha1) of every file of a dataset but _SUCCESS."""
    files = {}
    for root, _, names in os.walk(out):
        for n in names:
            p = Path(root) / n
            rel = str(p.relative_to(out))
            if rel != "_SUCCESS":
                files[rel] = hashlib.sha1(p.read_bytes()).hexdigest()
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/release/robots-census")
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--work", default="scale-out")
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--captures", type=int, default=1000)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    listing = make_inputs(work, args.shared, args.files, args.captures)
    inputs = listing.read_text().split()
    size = sum(Path(p).stat().st_size for p in inputs)
    cores = os.cpu_count() or 1
    base = [args.bin, "run", "--inputs-from", str(listing), "--quiet"]

    def fresh(name):
        out = work / name
        subprocess.run(["rm", "-rf", str(out)], check=True)
        return out

    rows = []
    full = fresh("full-1")
    rows.append(("one process, --threads 1", *run(base + ["--out", full, "--threads", "1"])))
    full_n = fresh(f"full-{cores}")
    rows.append((f"one process, --threads {cores}", *run(base + ["--out", full_n, "--threads", str(cores)])))
    seq = fresh("shards-sequential")
    shard_cmds = [base + ["--out", seq, "--threads", "1", "--shard", f"{i}/{args.shards}"] for i in range(args.shards)]
    per_shard = [run(c) for c in shard_cmds]
    rows.append((f"{args.shards} shards --threads 1, one after another",
                 sum(w for w, _ in per_shard), sum(c for _, c in per_shard)))
    conc = fresh("shards-concurrent")
    shard_cmds = [base + ["--out", conc, "--threads", "1", "--shard", f"{i}/{args.shards}"] for i in range(args.shards)]
    rows.append((f"{args.shards} shards --threads 1, all at once", *run_all(shard_cmds)))

    want = digest(full)
    checks = {}
    for name, out in [(f"--threads {cores}", full_n), ("sequential shards", seq), ("concurrent shards", conc)]:
        status = subprocess.run([args.bin, "status", str(out), "--json"], stdout=subprocess.PIPE)
        report = json.loads(status.stdout)
        checks[name] = {
            "equal_bytes": digest(out) == want,
            "status_exit": status.returncode,
            "documents": report["documents"],
            "tasks": report["tasks"],
        }
    documents = checks["sequential shards"]["documents"]
    print(f"{len(inputs)} inputs, {size / 1e6:.1f} MB, {documents:,} documents (captures); {cores} cores\n")
    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {load:.1f}\n")
    print("| run | wall s | documents/s (wall) | CPU s (user+sys) | documents per CPU s |")
    print("|---|---:|---:|---:|---:|")
    for name, secs, cpu in rows:
        print(f"| {name} | {secs:.1f} | {documents / secs:,.0f} | {cpu:.1f} | {documents / cpu:,.0f} |")
    print(f"\nper shard, one after another (wall s / CPU s): "
          + ", ".join(f"{w:.1f} / {c:.1f}" for w, c in per_shard))
    print(f"checks: {json.dumps(checks)}")
    result = {"inputs": len(inputs), "bytes": size, "documents": documents, "cores": cores, "load": load,
              "rows": rows, "per_shard": per_shard, "checks": checks}
    (work / "scale-check.json").write_text(json.dumps(result, indent=2) + "\n")
    if not all(c["equal_bytes"] and c["status_exit"] == 0 for c in checks.values()):
        raise SystemExit("a sharded output differs from the one-process run")


if __name__ == "__main__":
    main()
