"""The speed regression guard of ``make bench``: this build against a pinned earlier
commit, on the same file, in the same run.

The baseline (``--baseline``, default the Makefile's ``BENCH_BASELINE``) is built from
``git archive`` of that commit into ``<out>/baseline/<commit>/`` with its own target
directory, once; later runs reuse the binary. Each rep runs ``gzip -dc``, the baseline
and this build one after the other, for each configuration, so a noisy minute hits all
three alike; the medians are compared.

A configuration whose median is more than ``--guard-max`` times the baseline's is a
failure of ``make bench`` (listed under "Not run / failed", exit 1). The rows each binary
wrote are counted per table: tables both write must hold the same rows, or the
comparison is void and that is a failure too.

Also prints the targets of the speed issue (25), as ratios to ``gzip -dc`` measured in
the same run.
"""

import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent

# (label, flags): what the guard times on both binaries.
CONFIGS = [
    ("all tables, 1 thread", ["--threads", "1"]),
    ("--tables agents, 1 thread", ["--threads", "1", "--tables", "agents"]),
    ("all tables, 2 threads", ["--threads", "2"]),
]


class BuildFailed(Exception):
    pass


def resolve(rev):
    proc = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildFailed(f"no commit {rev!r} in this clone: {proc.stderr.strip()}")
    return proc.stdout.strip()


def build_baseline(rev, out, log):
    """The release binary of commit ``rev``, built once under ``<out>/baseline/``."""
    commit = resolve(rev)
    home = Path(out) / "baseline"
    exe = home / commit[:12] / "robots-census"
    if exe.exists():
        return commit, exe
    src = home / commit[:12] / "src"
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
    cmd = ["cargo", "build", "--release", "--locked", "--bin", "robots-census"]
    log(f"building the baseline {commit[:12]}: {' '.join(cmd)}")
    env = {**os.environ, "CARGO_TARGET_DIR": str(home / "target")}
    proc = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildFailed(f"cargo build of {commit[:12]} failed: {proc.stderr.strip()[-600:]}")
    shutil.copy2(home / "target" / "release" / "robots-census", exe)
    shutil.rmtree(src, ignore_errors=True)
    return commit, exe


def run(args, paths, results, timed, table_rows, log):
    """Times both binaries and ``gzip -dc``; appends to ``results["guard"]``."""
    out = Path(args.out)
    input_path = out / args.guard_input
    if "robots-census" not in paths:
        results["failures"].append("guard: this build's binary is missing")
        return
    try:
        commit, base = build_baseline(args.baseline, out, log)
    except BuildFailed as exc:
        results["failures"].append(f"guard: {exc}")
        return
    guard = results["guard"]
    guard.append({"baseline": commit[:12], "input": input_path.name,
                  "input_bytes": input_path.stat().st_size})
    tmp = Path(tempfile.mkdtemp(prefix="bench-guard-"))
    binaries = {"baseline": base, "this build": paths["robots-census"]}
    samples = {(label, who): [] for label, _ in CONFIGS for who in binaries}
    rss = {}
    rows = {}
    gzip = []
    try:
        for rep in range(args.reps):
            gzip.append(timed(["gzip", "-dc", input_path], 1)["seconds"])
            for label, flags in CONFIGS:
                for who, exe in binaries.items():
                    dest = tmp / who.replace(" ", "-")
                    shutil.rmtree(dest, ignore_errors=True)
                    row = timed([exe, "run", input_path, "--out", dest, "--quiet", *flags], 1)
                    if row["exit"] not in (0, 1):
                        results["failures"].append(f"guard: {who} exited {row['exit']} ({label})")
                        return
                    samples[(label, who)].append(row["seconds"])
                    rss[(label, who)] = max(rss.get((label, who), 0), row["rss_mib"])
                    if rep == 0:
                        rows[(label, who)] = table_rows(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    gzip_s = statistics.median(gzip)
    guard[0]["gzip_seconds"] = gzip_s
    for label, _ in CONFIGS:
        base_s = statistics.median(samples[(label, "baseline")])
        this_s = statistics.median(samples[(label, "this build")])
        base_rows, this_rows = rows[(label, "baseline")], rows[(label, "this build")]
        differ = {t: (base_rows[t], this_rows[t]) for t in base_rows.keys() & this_rows.keys()
                  if base_rows[t] != this_rows[t]}
        guard.append({"config": label, "baseline_seconds": base_s, "seconds": this_s,
                      "ratio": this_s / base_s, "x_gzip": this_s / gzip_s,
                      "baseline_x_gzip": base_s / gzip_s,
                      "rss_mib": rss[(label, "this build")],
                      "baseline_rss_mib": rss[(label, "baseline")],
                      "rows": this_rows, "rows_differ": differ})
        if differ:
            results["failures"].append(f"guard: {label}: rows differ from the baseline's: {differ}")
        elif this_s / base_s > args.guard_max:
            results["failures"].append(
                f"guard: {label}: {this_s / base_s:.2f}x the time of {commit[:12]} "
                f"(limit {args.guard_max:.2f}x)")


def render(rows, guard_max):
    if not rows:
        return []
    head, configs = rows[0], rows[1:]
    base = head["baseline"]
    out = [f"## Regression guard: this build vs {base}, {head['input']} "
           f"({head['input_bytes'] / 1e6:.0f} MB), runs interleaved", "",
           f"`gzip -dc > /dev/null` on the same file: {head['gzip_seconds']:.2f} s.", "",
           f"| run | {base} s | this build s | this / {base} | this x gzip -dc | {base} x gzip -dc "
           f"| peak RSS MiB (this / {base}) |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in configs:
        flag = " **over the limit**" if r["ratio"] > guard_max else ""
        out.append(f"| {r['config']} | {r['baseline_seconds']:.2f} | {r['seconds']:.2f} | "
                   f"{r['ratio']:.2f}x{flag} | {r['x_gzip']:.2f}x | {r['baseline_x_gzip']:.2f}x | "
                   f"{r['rss_mib']:.0f} / {r['baseline_rss_mib']:.0f} |")
    by = {r["config"]: r for r in configs}
    one, agents, two = (by.get(c) for c, _ in CONFIGS)
    out += ["", f"Limit: {guard_max:.2f}x the baseline's time. Targets of the speed issue:", ""]
    if one:
        out.append(f"- all tables, 1 thread: {one['x_gzip']:.2f}x gzip -dc (target: at most 2.0x)")
    if agents:
        out.append(f"- --tables agents, 1 thread: {agents['x_gzip']:.2f}x gzip -dc "
                   f"(target: at most 1.3x)")
    if one and two:
        out.append(f"- 2 threads: {one['seconds'] / two['seconds']:.2f}x 1 thread "
                   f"(target: at least 1.75x), peak RSS {two['rss_mib']:.0f} MiB "
                   f"(target: under 256 MiB)")
    return out + [""]
