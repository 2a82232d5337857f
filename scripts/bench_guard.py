"""The speed regression guard of ``make bench``: this build against the previous
release, on the same files, in the same run.

Both binaries are built here, the same way: ``cargo build --release --no-default-features``
(the pipeline without the study engine, which ``run`` never calls), this tree into
``target/lean`` (as ``make run`` builds it), the baseline from ``git archive`` of
``--baseline`` (default the Makefile's ``BENCH_BASELINE``: the commit of the previous
release) into a target directory of its own under ``<out>/baseline/``, built once. Not
a shared one: cargo names a workspace's crates by their path inside the workspace and
judges them fresh by file times, so two trees of the project in one target directory
can each be given the other's build.

The guard decides on instructions, not seconds: each configuration runs once under
``valgrind --tool=callgrind`` on ``--guard-input`` (10,000 captures), whose instruction
count is the same from run to run whatever else the machine does. A configuration
whose count is more than ``--guard-max`` times the baseline's fails ``make bench``
(listed under "Not run / failed", exit 1): a change that makes the code 5% slower in
what it computes shows here as about 5% more instructions, on a 2-core machine whose
wall-clock noise is several times that. What instructions do not see (cache misses,
memory bandwidth, a lock held longer) is left to the wall-clock runs printed beside:
each rep runs ``gzip -dc``, the baseline and this build one after the other on
``--guard-time-input``, so a noisy minute hits all three alike, and the medians are
compared but do not fail the run.

The rows each binary wrote are counted per table: tables both write must hold the same
rows, or the comparison is void and that is a failure too.
"""

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
LEAN_TARGET = REPO / "target" / "lean"
BUILD = ["cargo", "build", "--release", "--locked", "--no-default-features", "--bin",
         "robots-census"]

# (label, flags): what the guard counts and times on both binaries.
CONFIGS = [
    ("all tables, 1 thread", ["--threads", "1"]),
    ("--tables agents, 1 thread", ["--threads", "1", "--tables", "agents"]),
]
# Timed only (instruction counts are per thread of work, the same at 2 threads).
TIMED_ONLY = [("all tables, 2 threads", ["--threads", "2"])]


class BuildFailed(Exception):
    pass


def resolve(rev):
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildFailed(f"no commit {rev!r} in this clone: {proc.stderr.strip()}")
    return proc.stdout.strip()


def build_lean(src, target, exe, log):
    """``BUILD`` in ``src`` into ``target``, the binary copied to ``exe``."""
    log(f"building {src}: {' '.join(BUILD)}")
    env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
    proc = subprocess.run(BUILD, cwd=src, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildFailed(f"cargo build in {src} failed: {proc.stderr.strip()[-600:]}")
    exe.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(Path(target) / "release" / "robots-census", exe)
    return exe


def build_baseline(rev, out, log):
    """The lean release binary of commit ``rev``, built once under ``<out>/baseline/``."""
    commit = resolve(rev)
    home = Path(out) / "baseline" / commit[:12]
    exe = home / "robots-census"
    if exe.exists():
        return commit, exe
    src = home / "src"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(REPO), "archive", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(src)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise BuildFailed(f"git archive {commit} failed")
    # The copy sits inside this repository, whose Cargo.toml is a workspace: a commit
    # from before the workspace must say it is its own, or cargo refuses to build it.
    manifest = src / "Cargo.toml"
    if "[workspace]" not in manifest.read_text():
        with open(manifest, "a") as f:
            f.write("\n[workspace]\n")
    build_lean(src, Path(out) / "baseline" / "target", exe, log)
    shutil.rmtree(src, ignore_errors=True)
    return commit, exe


def instructions(exe, input_path, flags, dest, log):
    """Instructions ``exe run`` executes on ``input_path``, counted by callgrind."""
    shutil.rmtree(dest, ignore_errors=True)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(exe), "run",
           str(input_path), "--out", str(dest), "--quiet", *flags]
    log(" ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode not in (0, 1):
        raise BuildFailed(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-400:]}")
    match = re.search(r"Collected : (\d+)", proc.stderr)
    if not match:
        raise BuildFailed(f"callgrind printed no count: {proc.stderr[-400:]}")
    return int(match.group(1))


def run(args, paths, results, timed, table_rows, log):
    """Counts and times both binaries; appends to ``results["guard"]``."""
    out = Path(args.out)
    counted_input = out / args.guard_input
    timed_input = out / args.guard_time_input
    if shutil.which("valgrind") is None:
        results["failures"].append("guard: valgrind is not installed (make bench-tools)")
        return
    try:
        commit, base = build_baseline(args.baseline, out, log)
        this = build_lean(REPO, LEAN_TARGET, out / "guard" / "this-build" / "robots-census", log)
    except BuildFailed as exc:
        results["failures"].append(f"guard: {exc}")
        return
    guard = results["guard"]
    guard.append({"baseline": commit[:12], "input": counted_input.name,
                  "time_input": timed_input.name,
                  "time_input_bytes": timed_input.stat().st_size})
    tmp = Path(tempfile.mkdtemp(prefix="bench-guard-"))
    binaries = {"baseline": base, "this build": this}
    counts, rows = {}, {}
    try:
        for label, flags in CONFIGS:
            for who, exe in binaries.items():
                dest = tmp / who.replace(" ", "-")
                counts[(label, who)] = instructions(exe, counted_input, flags, dest, log)
                rows[(label, who)] = table_rows(dest)
        samples = {(label, who): [] for label, _ in CONFIGS + TIMED_ONLY for who in binaries}
        rss, gzip = {}, []
        for _ in range(args.reps):
            gzip.append(timed(["gzip", "-dc", timed_input], 1)["seconds"])
            for label, flags in CONFIGS + TIMED_ONLY:
                for who, exe in binaries.items():
                    dest = tmp / who.replace(" ", "-")
                    shutil.rmtree(dest, ignore_errors=True)
                    row = timed([exe, "run", timed_input, "--out", dest, "--quiet", *flags], 1)
                    samples[(label, who)].append(row["seconds"])
                    rss[(label, who)] = max(rss.get((label, who), 0), row["rss_mib"])
    except BuildFailed as exc:
        results["failures"].append(f"guard: {exc}")
        return
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    gzip_s = statistics.median(gzip)
    guard[0]["gzip_seconds"] = gzip_s
    for label, _ in CONFIGS + TIMED_ONLY:
        base_s = statistics.median(samples[(label, "baseline")])
        this_s = statistics.median(samples[(label, "this build")])
        row = {"config": label, "baseline_seconds": base_s, "seconds": this_s,
               "ratio": this_s / base_s, "x_gzip": this_s / gzip_s,
               "baseline_x_gzip": base_s / gzip_s, "rss_mib": rss[(label, "this build")],
               "baseline_rss_mib": rss[(label, "baseline")]}
        if (label, "this build") in counts:
            base_i, this_i = counts[(label, "baseline")], counts[(label, "this build")]
            base_rows, this_rows = rows[(label, "baseline")], rows[(label, "this build")]
            differ = {t: (base_rows[t], this_rows[t]) for t in base_rows.keys() & this_rows.keys()
                      if base_rows[t] != this_rows[t]}
            row.update({"baseline_instructions": base_i, "instructions": this_i,
                        "instructions_ratio": this_i / base_i, "rows": this_rows,
                        "rows_differ": differ})
            if differ:
                results["failures"].append(
                    f"guard: {label}: rows differ from the baseline's: {differ}")
            elif this_i / base_i > args.guard_max:
                results["failures"].append(
                    f"guard: {label}: {this_i / base_i:.3f}x the instructions of {commit[:12]} "
                    f"(limit {args.guard_max:.2f}x)")
        guard.append(row)


def render(rows, guard_max):
    if not rows:
        return []
    head, configs = rows[0], rows[1:]
    base = head["baseline"]
    out = [f"## Regression guard: this build vs {base}", "",
           f"Instructions (callgrind, one run each) on {head['input']}; limit "
           f"{guard_max:.2f}x the baseline's.", "",
           f"| run | {base} instructions | this build | this / {base} |",
           "|---|---:|---:|---:|"]
    for r in configs:
        if "instructions" not in r:
            continue
        flag = " **over the limit**" if r["instructions_ratio"] > guard_max else ""
        out.append(f"| {r['config']} | {r['baseline_instructions'] / 1e9:.3f} G | "
                   f"{r['instructions'] / 1e9:.3f} G | {r['instructions_ratio']:.3f}x{flag} |")
    out += ["", f"Wall clock (median, runs interleaved) on {head['time_input']} "
            f"({head['time_input_bytes'] / 1e6:.0f} MB); `gzip -dc > /dev/null`: "
            f"{head['gzip_seconds']:.2f} s. Shown, not guarded.", "",
            f"| run | {base} s | this build s | this / {base} | this x gzip -dc "
            f"| peak RSS MiB (this / {base}) |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in configs:
        out.append(f"| {r['config']} | {r['baseline_seconds']:.2f} | {r['seconds']:.2f} | "
                   f"{r['ratio']:.2f}x | {r['x_gzip']:.2f}x | "
                   f"{r['rss_mib']:.0f} / {r['baseline_rss_mib']:.0f} |")
    return out + [""]
