"""The crawl-slice rows of ``make bench``: many small Common Crawl-like inputs, read from
local disk and from a loopback HTTP server that injects 503s, next to one large file
holding the same captures.

Inputs come from ``make_crawl_slice.py`` (``<out>/crawl-slice/`` and
``<out>/crawl-slice-all.warc.gz``). For 1 and 2 threads, each of

- ``local``: ``run --inputs-from crawl-slice/robotstxt.paths --input-base-url crawl-slice/``
- ``http``:  the same list and files served by ``tests/servers/fault_http.py`` on
  127.0.0.1, every ``SLOWDOWN_EVERY``-th input answered once with S3's 503 SlowDown
  (``Retry-After: 1``) before it is served; at 2 threads also with no faults, and with
  every ``SLOWDOWN_EVERY``-th body stalled 3 s after 800 KB and cut (continued by a
  Range request after a backoff)
- ``one large file``: ``run crawl-slice-all.warc.gz``

is timed under ``/usr/bin/time -v`` (wall, peak RSS), with the part files per table and
the rows per table of its output. Called by ``bench.py`` (step ``crawl``).
"""

import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
SLOWDOWN_EVERY = 50
TIMEOUT = 3600  # seconds per process: the full slice takes minutes per run


def part_files(out_dir):
    """Parquet part files per table directory under ``out_dir``."""
    counts = {}
    for f in Path(out_dir).rglob("*.parquet"):
        table = f.relative_to(out_dir).parts[0]
        counts[table] = counts.get(table, 0) + 1
    return dict(sorted(counts.items()))


class FaultServer:
    """tests/servers/fault_http.py over the slice, on 127.0.0.1."""

    def __init__(self, root):
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "tests/servers/fault_http.py"), "--root", str(root),
             "--time-limit", "14400"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"fault_http.py did not start: {line!r}")
        self.base = f"http://127.0.0.1:{int(line[5:])}"

    def control(self, method, path, body=b""):
        req = urllib.request.Request(self.base + path, data=body if method == "POST" else None,
                                     method=method)
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.read()

    def arm(self, rel_paths, fault="slowdown"):
        """Fresh faults and statistics: on every SLOWDOWN_EVERY-th input, one 503 SlowDown
        (``slowdown``), or a body that stalls 3 s after 800 KB and is then cut (``stall``,
        continued with a Range request after a backoff), or nothing (``none``)."""
        kinds = {
            "slowdown": {"kind": "slowdown", "retry_after": 1, "times": 1},
            "stall": {"kind": "stall", "bytes": 800_000, "seconds": 3, "times": 1},
        }
        faults = {} if fault == "none" else {
            f"/{p}": [kinds[fault]] for p in rel_paths[::SLOWDOWN_EVERY]}
        self.control("POST", "/_faults", json.dumps(faults).encode())
        self.control("POST", "/_reset")

    def served_503s(self):
        log = json.loads(self.control("GET", "/_stats"))["log"]
        return sum(1 for e in log if abs(e.get("status") or 0) == 503)

    def served_cuts(self):
        """Bodies cut on purpose (the log negates their status)."""
        log = json.loads(self.control("GET", "/_stats"))["log"]
        return sum(1 for e in log if (e.get("status") or 0) < 0)

    def close(self):
        self.proc.kill()
        self.proc.wait()


def run(args, paths, results, timed, step, table_rows):
    out = Path(args.out)
    root = out / "crawl-slice"
    big = out / "crawl-slice-all.warc.gz"
    meta = json.loads((root / "slice.json").read_text())
    rel_paths = (root / "robotstxt.paths").read_text().split()
    rows = results["crawl"]
    tmp = Path(tempfile.mkdtemp(prefix="bench-crawl-"))
    rc = tmp / "rc"
    server = None

    def row(label, source, cmd, threads, input_bytes, before=None, after=None):
        def fresh():
            shutil.rmtree(rc, ignore_errors=True)
            if before:
                before()

        def go():
            r = timed([paths["robots-census"], "run", *cmd, "--out", rc, "--overwrite", "--quiet",
                       "--threads", threads], args.reps, timeout=TIMEOUT, before=fresh)
            r.update({"what": label, "source": source, "threads": threads,
                      "inputs": 1 if source == "one large file" else meta["inputs"],
                      "captures": meta["captures"], "input_bytes": input_bytes,
                      "files": part_files(rc), "tables": table_rows(rc)})
            if after:
                r.update(after())
            rows.append(r)

        step(results, f"crawl {label} --threads {threads}", go)

    try:
        if "robots-census" not in paths:
            return
        local = ["--inputs-from", root / "robotstxt.paths", "--input-base-url", f"{root}/"]
        for threads in (1, 2):
            row("robots-census run, 1 large file", "one large file", [big], threads,
                big.stat().st_size)
            row(f"robots-census run, {meta['inputs']:,} files, local disk", "local", local,
                threads, meta["inputs_bytes"])
        server = FaultServer(root)
        remote = ["--inputs-from", f"{server.base}/robotstxt.paths",
                  "--input-base-url", f"{server.base}/"]
        for threads in (1, 2):
            row(f"robots-census run, {meta['inputs']:,} files, loopback HTTP with 503s", "http",
                remote, threads, meta["inputs_bytes"], before=lambda: server.arm(rel_paths),
                after=lambda: {"served_503": f"{server.served_503s()} 503s"})
        # Issue 22: faults must not cost the pool its threads (target: within 5% of the
        # same run without faults, 2 threads).
        row(f"robots-census run, {meta['inputs']:,} files, loopback HTTP, no faults", "http",
            remote, 2, meta["inputs_bytes"], before=lambda: server.arm(rel_paths, "none"))
        row(f"robots-census run, {meta['inputs']:,} files, loopback HTTP, stalled and cut bodies",
            "http", remote, 2, meta["inputs_bytes"],
            before=lambda: server.arm(rel_paths, "stall"),
            after=lambda: {"served_503": f"{server.served_cuts()} cut bodies"})
    finally:
        if server:
            server.close()
        shutil.rmtree(tmp, ignore_errors=True)


def fmt(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def render(rows):
    if not rows:
        return []
    out = ["## Crawl slice (many small inputs vs one large file)", "",
           "| command | inputs | threads | captures | MB .gz | s | captures/s | % of 1 large file | "
           "peak RSS MiB | exit | faults served | part files per table |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    big = {r["threads"]: r for r in rows if r["source"] == "one large file"}
    local = {r["threads"]: r for r in rows if r["source"] == "local"}
    for r in rows:
        rate = r["captures"] / r["seconds"]
        base = big.get(r["threads"])
        share = f"{100 * base['seconds'] / r['seconds']:.0f}%" if base else "n/a"
        files = ", ".join(f"{k} {v:,}" for k, v in r["files"].items())
        out.append(f"| {r['what']} | {r['inputs']:,} | {r['threads']} | {r['captures']:,} | "
                   f"{r['input_bytes'] / 1e6:,.0f} | {r['seconds']:.1f} | {fmt(rate)} | {share} | "
                   f"{fmt(r['rss_mib'])} | {r['exit']} | {r.get('served_503', '-')} | {files} |")
    out += ["", "Targets of issue 11, from the rows above:", ""]
    for threads in (1, 2):
        for r in rows:
            if r["threads"] != threads or r["source"] == "one large file":
                continue
            if r["source"] == "local" and threads in big:
                out.append(f"- {threads} thread(s): many small local inputs at "
                           f"{100 * big[threads]['seconds'] / r['seconds']:.0f}% of the large "
                           "file's throughput (target: at least 95%).")
            if r["source"] == "http" and threads in local:
                out.append(f"- {threads} thread(s): loopback HTTP at "
                           f"{100 * local[threads]['seconds'] / r['seconds']:.0f}% of local disk "
                           "(target: at least 90%).")
    worst = max(rows, key=lambda r: r["rss_mib"])
    out.append(f"- Peak RSS: at most {fmt(worst['rss_mib'])} MiB ({worst['what']}, "
               f"--threads {worst['threads']}; target: under 1 GiB).")
    return out + [""]
