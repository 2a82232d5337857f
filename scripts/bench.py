"""Run every robots-census benchmark once and write one results table with ratios.

Called by ``make bench`` after the inputs exist (``make_bench_corpus.py``,
``make_hostile_inputs.py``). Steps, each independent: a step that fails (a build error,
a missing subcommand, a timeout) is reported as "not run" with the reason, the others
still run, and the script exits 1 at the end.

1. build   ``cargo build --release --locked --bin robots-census`` and the bench programs
2. parse   robots-census vs texting_robots (``benches/parse.rs``) vs the reference
3. verdicts 20 agents x 5 URLs per body (``benches/verdicts.rs``, ``bench_reference.py``)
4. end to end  ``robots-census run`` vs ``python_baseline.py`` vs ``gzip -dc`` and
           ``benches/inflate.rs`` (the decompression limit), ``--threads 1`` and ``2``
5. hostile peak memory on a 100 MiB body and on a gzip bomb
6. guard   this build vs the previous release (``bench_guard.py``): instructions counted
           by callgrind on the same file decide; wall-clock runs interleaved beside
7. crawl   the crawl slice (``bench_crawl.py``): 1,000 small inputs from local disk and
           from a loopback HTTP server injecting 503s, vs one large file, 1 and 2 threads

Process timings use ``/usr/bin/time -v`` (wall time measured here, peak RSS from time),
repeated ``--reps`` times, median taken. In-process timings are done by the bench
programs themselves, the same way. Output: ``<out>/results.md`` (printed) and
``<out>/results.json``.

Usage: bench.py [--out bench-out] [--shared ../shared] [--reps 3]
"""

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

import bench_crawl
import bench_guard
import bench_query
import bench_changes
import bench_sites

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
TIMEOUT = 600  # seconds, per process


class StepFailed(Exception):
    """A benchmark step could not run; the message says why."""


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def run_json(cmd, timeout=TIMEOUT):
    """Run a program that prints JSON lines; return them as dicts."""
    cmd = [str(c) for c in cmd]
    log(" ".join(cmd))
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise StepFailed(f"timed out after {timeout}s: {cmd[0]}") from exc
    if proc.returncode != 0:
        raise StepFailed(f"{Path(str(cmd[0])).name} exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def timed(cmd, reps, timeout=TIMEOUT, stdout=subprocess.DEVNULL, before=None):
    """Run ``cmd`` under /usr/bin/time -v ``reps`` times: median wall s, max RSS MiB, exit code."""
    walls, rss, code = [], [], 0
    for _ in range(reps):
        if before:
            before()
        with tempfile.NamedTemporaryFile("r", suffix=".time") as tfile:
            full = ["/usr/bin/time", "-v", "-o", tfile.name] + [str(c) for c in cmd]
            log(" ".join(full[4:]))
            start = time.perf_counter()
            try:
                proc = subprocess.run(full, cwd=REPO, stdout=stdout, stderr=subprocess.PIPE,
                                      timeout=timeout)
            except subprocess.TimeoutExpired as exc:
                raise StepFailed(f"timed out after {timeout}s: {' '.join(map(str, cmd))}") from exc
            walls.append(time.perf_counter() - start)
            match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", tfile.read())
            rss.append(int(match.group(1)) / 1024 if match else float("nan"))
        code = proc.returncode
        if code not in (0, 1):  # 1 = robots-census finished but skipped some input
            first = (proc.stderr.decode(errors="replace").strip().splitlines() or [""])[0]
            raise StepFailed(f"exit {code}: {first[:300]}")
    return {"seconds": statistics.median(walls), "rss_mib": max(rss), "exit": code,
            "walls": walls}


# ---------------------------------------------------------------- machine and build

def machine():
    model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break

    def version(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "missing"

    rev = version(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    return {"nproc": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "rustc": version(["rustc", "--version"]), "python": platform.python_version(),
            "git": rev, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def build(results, benches=True):
    """Build the release binary and (unless ``benches`` is false) the bench programs;
    return their paths."""
    paths = {}
    try:
        cmd = ["cargo", "build", "--release", "--locked", "--bin", "robots-census"]
        log(" ".join(cmd))
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
        if proc.returncode != 0:
            raise StepFailed("cargo build failed: " + proc.stderr.strip()[-600:])
        paths["robots-census"] = REPO / "target" / "release" / "robots-census"
    except StepFailed as exc:
        results["failures"].append(f"build robots-census: {exc}")
    for bench in ["inflate", "parse", "verdicts"] if benches else []:
        try:
            paths[bench] = build_bench(bench)
        except StepFailed as exc:
            results["failures"].append(f"build bench {bench}: {exc}")
    return paths


def build_bench(name):
    cmd = ["cargo", "bench", "--locked", "--no-run", "--bench", name, "--message-format=json"]
    log(" ".join(cmd))
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        errors = [json.loads(line)["message"]["rendered"] for line in proc.stdout.splitlines()
                  if '"compiler-message"' in line and '"level":"error"' in line]
        raise StepFailed("; ".join(e.splitlines()[0] for e in errors[:3]) or proc.stderr[-400:])
    for line in proc.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == name \
                and msg.get("executable"):
            return Path(msg["executable"])
    raise StepFailed(f"no executable for bench {name}")


# ---------------------------------------------------------------- steps

def step(results, name, fn):
    try:
        fn()
    except StepFailed as exc:
        results["failures"].append(f"{name}: {exc}")
        log(f"FAILED {name}: {exc}")


def bench_parse(args, paths, results):
    rows = results["parse"]
    if "parse" in paths:
        step(results, "parse (Rust engines)", lambda: rows.extend(
            run_json([paths["parse"], "--shared", args.shared, "--reps", args.reps])))
    step(results, "parse (reference)", lambda: rows.extend(run_json(
        [sys.executable, SCRIPTS / "bench_reference.py", "parse", "--shared", args.shared,
         "--reps", args.reps])))


def bench_verdicts(args, paths, results):
    rows = results["verdicts"]
    questions = Path(args.out) / "questions.tsv"
    if "verdicts" in paths:
        step(results, "verdicts (Rust engines)", lambda: rows.extend(run_json(
            [paths["verdicts"], "--shared", args.shared, "--questions", questions,
             "--reps", args.reps, "--every", args.every])))
    step(results, "verdicts (reference)", lambda: rows.extend(run_json(
        [sys.executable, SCRIPTS / "bench_reference.py", "verdicts", "--shared", args.shared,
         "--questions", questions, "--reps", args.reps, "--every", args.every])))


def bench_python_step(args, paths, results):
    """The Python module (from the wheel in dist/) against the Python libraries."""
    rows = results["python"]
    wheels = sorted(REPO.glob("dist/robots_census-*.whl"))
    if len(wheels) != 1:
        results["failures"].append(f"python: expected one dist/robots_census-*.whl (make wheel), found {len(wheels)}")
        return
    site = Path(args.out) / "python-site"
    shutil.rmtree(site, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index",
                    "--disable-pip-version-check", "--target", str(site), str(wheels[0])], check=True)
    step(results, "python", lambda: rows.extend(run_json(
        [sys.executable, SCRIPTS / "bench_python.py", "--site", site, "--shared", args.shared,
         "--questions", Path(args.out) / "questions.tsv", "--reps", args.reps,
         "--every", max(1, int(args.every) // 4)])))


def render_python(rows):
    out = ["## Python, one process (20 agents x 5 URLs per body, parse included)", "",
           "| engine | bodies | questions | s | questions/s | robots_census is x faster | allowed |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    ours = next((r for r in rows if r["engine"].startswith("robots_census RobotsTxt") and "seconds" in r), None)
    for r in rows:
        if "error" in r:
            out.append(f"| {r['engine']} | not run: {r['error']} | | | | | |")
            continue
        ratio = fmt(r["seconds"] / ours["seconds"], 2) if ours else "n/a"
        out.append(f"| {r['engine']} | {r['docs']:,} | {r['questions']:,} | {r['seconds']:.3f} | "
                   f"{fmt(r['questions'] / r['seconds'])} | {ratio} | {r['allowed']:,} |")
    return out + ["", "Google's parser is the reference: an allowed count that differs from its "
                  "row is a number of questions answered differently.", ""]


def table_rows(out_dir):
    """Rows per Parquet table under ``out_dir`` (a table is a file stem or a directory)."""
    counts = {}
    for f in sorted(Path(out_dir).rglob("*.parquet")):
        rel = f.relative_to(out_dir)
        table = rel.parts[0] if len(rel.parts) > 1 else f.stem.split("-")[0].split(".")[0]
        counts[table] = counts.get(table, 0) + pq.ParquetFile(f).metadata.num_rows
    return counts


def e2e_row(results, label, cmd, input_path, captures, reps, out_dir=None, **extra):
    def fresh():
        if out_dir:
            shutil.rmtree(out_dir, ignore_errors=True)

    def go():
        row = timed(cmd, reps, before=fresh)
        row.update({"what": label, "input": Path(input_path).name, "captures": captures,
                    "input_bytes": Path(input_path).stat().st_size, **extra})
        if out_dir:
            row["tables"] = table_rows(out_dir)
            if not row["tables"]:
                raise StepFailed(f"exit {row['exit']} but no Parquet tables in the output directory")
        results["e2e"].append(row)

    step(results, f"e2e {label} on {Path(input_path).name}", go)


def thread_counts():
    """1, 2, 4, ... up to the cores of this machine, and the core count itself."""
    cores = os.cpu_count() or 1
    counts = {1, 2, cores}
    n = 4
    while n < cores:
        counts.add(n)
        n *= 2
    return sorted(counts)


def bench_e2e(args, paths, results):
    out = Path(args.out)
    corpus = json.loads((out / "corpus.json").read_text())
    big, small = out / "cc.warc.gz", out / "cc-small.warc.gz"
    n_big, n_small = corpus["responses"], corpus["small_responses"]
    tmp = Path(tempfile.mkdtemp(prefix="bench-e2e-"))

    def census(input_path, captures, threads, reps, *flags, **extra):
        """One ``robots-census run`` row: the input into fresh tables under ``tmp``."""
        label = " ".join([f"robots-census run --threads {threads}", *flags])
        e2e_row(results, label,
                [paths["robots-census"], "run", input_path, "--out", tmp / "rc", "--overwrite",
                 "--quiet", "--threads", threads, *flags], input_path, captures, reps,
                out_dir=tmp / "rc", threads=threads, **extra)

    try:
        e2e_row(results, "gzip -dc > /dev/null", ["gzip", "-dc", big], big, n_big, args.reps)
        if "inflate" in paths:
            e2e_row(results, "inflate.rs raw deflate, one state reused", [paths["inflate"], big],
                    big, n_big, args.reps)
            e2e_row(results, "inflate.rs flate2 gzip mode, reset per member",
                    [paths["inflate"], "--gzip-mode", big], big, n_big, args.reps)
            e2e_row(results, "inflate.rs --whole: libdeflate per member, zlib-rs for the rest",
                    [paths["inflate"], "--whole", big], big, n_big, args.reps)
        if "robots-census" in paths:
            for threads in thread_counts():
                census(big, n_big, threads, args.reps)
            census(big, n_big, 1, args.reps, "--tables", "agents", subset=True)
            # The readings table's cost (issue 21): Google's profile alone, then all eleven.
            census(big, n_big, 1, args.reps, "--tables", "agents", "--profiles", "google",
                   subset=True)
            census(big, n_big, 1, args.reps, "--tables", "agents", "--profiles", "all",
                   subset=True)
            census(small, n_small, 1, args.reps)
        csv = out / "cc.csv.gz"
        e2e_row(results, "gzip -dc > /dev/null", ["gzip", "-dc", csv], csv, n_big, args.reps)
        if "inflate" in paths:
            e2e_row(results, "inflate.rs flate2 gzip mode, reset per member",
                    [paths["inflate"], "--gzip-mode", csv], csv, n_big, args.reps)
        if "robots-census" in paths:
            for threads in thread_counts():
                census(csv, n_big, threads, args.reps)
        e2e_row(results, "python_baseline.py (warcio + jwm-robotstxt + pyarrow)",
                [sys.executable, SCRIPTS / "python_baseline.py", small, "--out", tmp / "py"],
                small, n_small, args.reps, out_dir=tmp / "py")
        for name in ["hostile-100mb.warc.gz", "hostile-bomb.warc.gz"]:
            hostile = out / name
            if "robots-census" in paths:
                census(hostile, 1, 2, 1, hostile=True)
            e2e_row(results, "python_baseline.py", [sys.executable, SCRIPTS / "python_baseline.py",
                    hostile, "--out", tmp / "py"], hostile, 1, 1, out_dir=tmp / "py", hostile=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_guard_step(args, paths, results):
    def run():
        bench_guard.run(args, paths, results, timed, table_rows, log)
    step(results, "guard", run)


# ---------------------------------------------------------------- report

def bench_crawl_step(args, paths, results):
    # The crawl slice is timed with repetitions of its own (it takes minutes per run).
    crawl_args = argparse.Namespace(**{**vars(args), "reps": args.crawl_reps})
    bench_crawl.run(crawl_args, paths, results, timed, step, table_rows)


def fmt(x, digits=1):
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def render(results):
    m = results["machine"]
    lines = [
        "# robots-census benchmark results", "",
        f"Machine: nproc={m['nproc']}, CPU: {m['cpu']}, kernel {m['kernel']}; {m['rustc']}; "
        f"Python {m['python']}; commit {m['git']}; {m['date']}. Shared, noisy machine: read the ratios.",
        f"Median of {results['reps']} runs unless marked (1 run).", "",
    ]
    # Steps left out with --only (or that produced nothing) get no empty tables.
    if results["parse"]:
        lines += render_parse(results["parse"])
    if results["verdicts"]:
        lines += render_verdicts(results["verdicts"])
    if results["python"]:
        lines += render_python(results["python"])
    if results["e2e"]:
        lines += render_e2e(results["e2e"])
    lines += bench_guard.render(results["guard"], results["guard_max"])
    lines += bench_crawl.render(results["crawl"])
    lines += bench_query.render(results["query"])
    lines += bench_sites.render(results.get("sites", []))
    lines += bench_changes.render(results.get("changes", []))
    if results["failures"]:
        lines += ["## Not run or failed", ""] + [f"- {f}" for f in results["failures"]] + [""]
    return "\n".join(lines)


def render_parse(rows):
    out = ["## Parse, one thread (all corpus bodies, each cut at 512,000 bytes)", "",
           "| engine | docs | MB | s | MB/s | docs/s | robots-census is x faster |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    ours = next((r for r in rows if r["engine"].startswith("robots-census")), None)
    for r in rows:
        speed = r["bytes"] / r["seconds"] / 1e6
        ratio = ours and r["seconds"] and r["seconds"] / ours["seconds"]
        errors = f" ({r['errors']} errors)" if r.get("errors") else ""
        out.append(f"| {r['engine']}{errors} | {r['docs']:,} | {r['bytes'] / 1e6:.1f} | "
                   f"{r['seconds']:.3f} | {fmt(speed)} | {fmt(r['docs'] / r['seconds'])} | "
                   f"{fmt(ratio, 2) if ours else 'n/a'} |")
    return out + [""]


def render_verdicts(rows):
    out = ["## Verdicts, one thread (20 agents x 5 URLs per body, parsing included)", "",
           "| engine | bodies | verdicts | s | verdicts/s | robots-census is x faster (same bodies) | allowed |",
           "|---|---|---:|---:|---:|---:|---:|"]
    ours = {r["set"]: r for r in rows if r["engine"].startswith("robots-census")}
    for r in rows:
        rate = r["verdicts"] / r["seconds"]
        mine = ours.get(r["set"])
        ratio = fmt(r["seconds"] / mine["seconds"], 2) if mine else "n/a"
        out.append(f"| {r['engine']} | {r['set']}: {r['docs']:,} | {r['verdicts']:,} | "
                   f"{r['seconds']:.3f} | {fmt(rate)} | {ratio} | {r['allowed']:,} |")
    sample = {r["engine"]: r["allowed"] for r in rows if r["set"].startswith("sample")}
    if len(set(sample.values())) > 1:
        out += ["", "Allowed counts on the sample differ between engines: "
                + ", ".join(f"{k}: {v:,}" for k, v in sample.items())
                + " (the reference is Google's parser; a difference is a disagreement)."]
    return out + [""]


def render_targets(rows, limit, hostile):
    """Issue 5's targets, computed from the end-to-end rows."""
    def run(input_name, threads):
        return next((r for r in rows if r.get("threads") == threads and r["input"] == input_name
                     and r["what"].startswith("robots-census") and not r.get("subset")), None)

    out = ["", "Targets of issue 5, from the rows above:", ""]
    for name in ["cc.warc.gz", "cc.csv.gz"]:
        one = run(name, 1)
        if not one:
            continue
        if name in limit:
            out.append(f"- {name}, one thread: {100 * limit[name] / one['seconds']:.0f}% of the "
                       f"throughput of inflating the same file alone (target: at least 50%).")
        for r in rows:
            if (r["input"] == name and r.get("threads", 1) > 1 and not r.get("subset")
                    and r["what"].startswith("robots-census")):
                out.append(f"- {name}, --threads {r['threads']}: {one['seconds'] / r['seconds']:.2f}x "
                           f"--threads 1 (target for 2 threads: at least 1.8x), "
                           f"{100 * limit.get(name, float('nan')) / r['seconds']:.0f}% of the inflate "
                           f"limit, peak RSS {fmt(r['rss_mib'])} MiB.")
    small = run("cc-small.warc.gz", 1)
    python = next((r for r in rows if r["what"].startswith("python_baseline")), None)
    if small and python:
        out.append(f"- cc-small.warc.gz, one thread: {python['seconds'] / small['seconds']:.1f}x the "
                   f"Python baseline's responses/s (target: at least 10x).")
    ours = [r for r in rows + hostile if r["what"].startswith("robots-census")]
    if ours:
        worst = max(ours, key=lambda r: r["rss_mib"])
        out.append(f"- Peak RSS of every robots-census run: at most {fmt(worst['rss_mib'])} MiB "
                   f"({worst['what']} on {worst['input']}; target: under 1 GiB at 2 threads).")
    return out


def render_e2e(rows):
    main_rows = [r for r in rows if not r.get("hostile")]
    limit = {}  # the fastest inflate of each input is the decompression limit
    for r in main_rows:
        if r["what"].startswith("inflate"):
            limit[r["input"]] = min(r["seconds"], limit.get(r["input"], float("inf")))
    out = ["## End to end (one .warc.gz or .csv.gz in, Parquet tables out)", "",
           "| command | input | responses | MB .gz | s | responses/s | MB/s (.gz) | peak RSS MiB | x inflate time | tables (rows) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in main_rows:
        lim = limit.get(r["input"])
        ratio = fmt(r["seconds"] / lim, 2) if lim else "n/a"
        tables = ", ".join(f"{k} {v:,}" for k, v in r.get("tables", {}).items()) or "-"
        out.append(f"| {r['what']} | {r['input']} | {r['captures']:,} | {r['input_bytes'] / 1e6:.1f} | "
                   f"{r['seconds']:.2f} | {fmt(r['captures'] / r['seconds'])} | "
                   f"{fmt(r['input_bytes'] / r['seconds'] / 1e6)} | {fmt(r['rss_mib'])} | {ratio} | {tables} |")
    out += render_targets(main_rows, limit, [r for r in rows if r.get("hostile")])
    hostile = [r for r in rows if r.get("hostile")]
    if hostile:
        out += ["", "## Hostile inputs (1 run each)", "",
                "| command | input | s | peak RSS MiB | exit | tables (rows) |", "|---|---|---:|---:|---:|---|"]
        for r in hostile:
            tables = ", ".join(f"{k} {v:,}" for k, v in r.get("tables", {}).items()) or "-"
            out.append(f"| {r['what']} | {r['input']} | {r['seconds']:.2f} | {fmt(r['rss_mib'])} | "
                       f"{r['exit']} | {tables} |")
    return out + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--crawl-reps", type=int, default=1, help="repetitions of the crawl-slice runs")
    parser.add_argument("--every", type=int, default=20, help="sample for the slow verdict engines")
    parser.add_argument("--only", default="parse,verdicts,python,e2e,guard,crawl,query",
                        help="comma-separated steps (also: sites and changes, not run by "
                             "default: their 10M crawls take several minutes each)")
    parser.add_argument("--baseline", default="3478ea6",
                        help="the commit the guard compares this build with")
    parser.add_argument("--guard-input", default="cc-small.warc.gz",
                        help="the input whose instructions the guard counts, in --out")
    parser.add_argument("--guard-time-input", default="cc.warc.gz",
                        help="the input the guard times (shown, not guarded), in --out")
    parser.add_argument("--query-input", default="cc.warc.gz",
                        help="the input of the query step's dataset, in --out")
    parser.add_argument("--sites-sizes", default="2000000,10000000",
                        help="captures of the sites step's generated crawls")
    parser.add_argument("--changes-captures", default="2000000,10000000",
                        help="captures of each of the changes step's two generated crawls")
    parser.add_argument("--guard-max", type=float, default=1.04,
                        help="fail when a guarded run executes more than this times the "
                             "baseline's instructions")
    args = parser.parse_args()
    args.out = str(Path(args.out).resolve())
    args.shared = str(Path(args.shared).resolve())
    results = {"machine": machine(), "reps": args.reps, "parse": [], "verdicts": [], "python": [], "e2e": [],
               "crawl": [], "guard": [], "guard_max": args.guard_max, "query": [], "sites": [], "changes": [],
               "failures": []}
    only = args.only.split(",")
    # The crawl slice needs only the robots-census binary.
    paths = build(results, benches=bool(set(only) - {"crawl", "guard", "python", "query", "sites",
                                                          "changes"}))
    steps = {"parse": bench_parse, "verdicts": bench_verdicts, "python": bench_python_step,
             "e2e": bench_e2e,
             "guard": bench_guard_step, "crawl": bench_crawl_step,
             "query": lambda a, p, r: bench_query.run(a, p, r, timed, step),
             "sites": lambda a, p, r: bench_sites.run(a, p, r, timed, step),
             "changes": lambda a, p, r: bench_changes.run(a, p, r, timed, step)}
    for name in only:
        steps[name](args, paths, results)
    report = render(results)
    Path(args.out, "results.md").write_text(report)
    Path(args.out, "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(report)
    sys.exit(1 if results["failures"] else 0)


if __name__ == "__main__":
    main()
