"""Run robots-census on Spark: one Spark task per robots-census task, nothing else.

    spark-submit [--files target/release/robots-census] spark/robots_census_spark.py \\
        [--binary PATH] RUN_ARGS...

(The steps after the run, `sites` and `changes`, are one crawl per machine: run
`robots-census sites OUT --crawl C` on each, as deploy/ shows for Kubernetes and Batch.)

RUN_ARGS are the arguments of `robots-census run` exactly as on one machine: inputs,
`--inputs-from LIST`, `--out OUT`, `--tables`, `--inputs-per-task K`, ... Inputs, the list
and OUT must be readable (and OUT writable) by every executor under the same name: URLs,
or paths on a shared file system. Spark only schedules; the binary does all the work.

How it runs, in the way cc-pyspark runs an external tool per task:

1. The driver asks the binary for the task list (`run RUN_ARGS --plan`): N tasks, each
   K consecutive inputs of the sorted input list, and their names. The driver reads no
   input and no list itself: the binary does, whatever the list's scheme.
2. One RDD element per task, `numSlices = N`. Executor task j runs the binary as a
   subprocess: `robots-census run RUN_ARGS --shard j/N --resume --threads C` (C =
   spark.task.cpus unless RUN_ARGS set --threads). `--shard j/N` with N tasks runs task
   j and nothing else. The binary comes from SparkFiles when shipped with
   `--files .../robots-census`, else `--binary`, else `robots-census` on PATH (the
   wheel: `pip install robots_census-*.whl` on every executor).
3. Exit codes decide what Spark does:
   0, 1   committed (1: some inputs or records were skipped; each is an `errors` row).
          The task returns its manifest (`<OUT>/_manifests/<task>.json`; when OUT is
          a URL, the driver's `status` check stands in for it).
   75     worth retrying (network retries exhausted): the task raises, Spark runs it
          again (up to spark.task.maxFailures attempts in all).
   2      usage error or unwritable output: retrying cannot help. The task does not
          raise (Spark would retry it); it reports to an accumulator the driver polls,
          and the driver cancels the job and exits 2.
   other  (130 = terminated, a signal, a crash) raises: Spark retries.
4. The driver checks that every task came back committed (its manifest names the
   planned task), then runs `robots-census status OUT`, which checks a manifest per
   task and writes `<OUT>/_SUCCESS`.

Why retries and speculative duplicates are harmless: a task's output files are named
by the task (`<table>/crawl=<C>/<task>.parquet`, `_manifests/<task>.json`), never by
the attempt, and their bytes depend only on the task's inputs and the settings (not
on the machine, thread count or timing). Each process writes under a temporary name
unique to it (`.<name>.<machine>-<pid>-<n>.tmp`, which no `*.parquet` glob matches) and renames
it into place; on S3 an object appears whole when its upload completes. The manifest
is renamed last. So a failed attempt leaves no visible part, and two attempts of the
same task (a retry after a lost executor, or a speculative copy running at the same
time) both write the same bytes under the same names: whichever rename comes last,
the dataset holds one copy of each part, identical to a single-machine run. A task
that is killed mid-way is not done until some attempt writes its manifest, and
`--resume` makes a rerun of the whole job skip tasks already committed.

Exit status of the driver: 0 complete (`_SUCCESS` written); 1 complete, but some
tasks exited 1 (skipped inputs); 2 usage error, a task exited 2, or the tasks said
they committed but OUT does not show it (an OUT not shared by the executors);
75 the job failed after Spark's retries (run it again: committed tasks are skipped).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

BINARY_NAME = "robots-census"
# Flags the job sets itself for each task: a user's copy would conflict.
MANAGED_FLAGS = ("--shard", "--plan", "--overwrite")
TRANSIENT = 75
USAGE = 2
STDERR_TAIL = 4000


class TaskFailed(RuntimeError):
    """A task attempt that is worth retrying: Spark runs it again."""


def parse_job_args(argv):
    """Splits the job's own options (first) from the arguments of `run` (the rest):
    (binary, args)."""
    binary = None
    args = list(argv)
    while args and args[0] in ("--binary", "--help", "-h"):
        if args[0] in ("--help", "-h"):
            print(__doc__)
            sys.exit(0)
        if len(args) < 2:
            raise SystemExit(f"robots_census_spark: {args[0]} needs a value")
        binary = args[1]
        args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag in MANAGED_FLAGS:
            raise SystemExit(
                f"robots_census_spark: {flag} is set by the job for each task; leave it out"
                + (" (delete the old dataset first, or use a new --out)" if flag == "--overwrite" else "")
            )
    return binary, args


def task_args(run_args, task_cpus):
    """The arguments every task adds to the user's: --resume (a rerun of the job skips
    committed tasks) and --threads (Spark's cores per task) unless the user chose."""
    args = list(run_args)
    if "--resume" not in args:
        args.append("--resume")
    if not any(a in ("-j", "--threads") or a.startswith(("--threads=", "-j")) for a in args):
        args += ["--threads", str(task_cpus)]
    return args


def find_binary(explicit):
    """The robots-census to run here: --binary, else the copy shipped with --files,
    else the one on PATH (the wheel)."""
    if explicit:
        found = explicit if os.sep in explicit else shutil.which(explicit)
        if found and os.access(found, os.X_OK):
            return found
        raise FileNotFoundError(f"--binary {explicit}: not an executable here")
    try:
        from pyspark import SparkFiles

        shipped = SparkFiles.get(BINARY_NAME)
        if os.path.isfile(shipped):
            if not os.access(shipped, os.X_OK):
                os.chmod(shipped, 0o755)
            return shipped
    except Exception:  # no SparkContext files here: fall back to PATH
        pass
    found = shutil.which(BINARY_NAME)
    if found:
        return found
    raise FileNotFoundError(
        f"no {BINARY_NAME}: ship it with spark-submit --files .../{BINARY_NAME}, "
        "install the wheel on every executor, or pass --binary PATH"
    )


def _die_with_parent():
    """Linux: the binary gets SIGTERM when the Python worker that started it dies (a
    task killed by Spark), so no orphan goes on writing. SIGTERM makes it stop at the
    next record, keep committed tasks and exit 130."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:  # not Linux: the orphan finishes its task, which is harmless
        pass


def read_manifest(out, name):
    """The task's manifest when OUT is a path this process can read, else None."""
    if "://" in out:
        return None
    try:
        with open(os.path.join(out, "_manifests", f"{name}.json"), "rb") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def plan(binary, run_args):
    """`run RUN_ARGS --plan`: (header, tasks); exits with the binary's code on error."""
    proc = subprocess.run(
        [binary, "run", *run_args, "--plan"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode("utf-8", "replace"))
        raise SystemExit(proc.returncode or USAGE)
    lines = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines() if line]
    header, tasks = lines[0], lines[1:]
    if len(tasks) != header["tasks"]:
        raise SystemExit(f"robots_census_spark: the plan lists {len(tasks)} of {header['tasks']} tasks")
    return header, tasks


def make_task_runner(explicit_binary, args, n_tasks, out, fatal):
    """The function each Spark task runs on its (index, name) element."""

    def run_task(element):
        from pyspark import TaskContext

        index, name = element
        context = TaskContext.get()
        attempt = context.attemptNumber() if context else 0
        try:
            binary = find_binary(explicit_binary)
        except FileNotFoundError as e:
            fatal.add([{"index": index, "task": name, "exit": USAGE, "stderr": str(e)}])
            return {"index": index, "task": name, "exit": USAGE}
        started = time.monotonic()
        proc = subprocess.run(
            [binary, "run", *args, "--shard", f"{index}/{n_tasks}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        stderr = proc.stderr.decode("utf-8", "replace")
        # The binary's summary and warnings go to the executor's log.
        sys.stderr.write(f"[robots-census task {index} {name}, attempt {attempt}, exit {proc.returncode}]\n{stderr}")
        result = {
            "index": index,
            "task": name,
            "exit": proc.returncode,
            "attempt": attempt,
            "seconds": round(time.monotonic() - started, 3),
        }
        if proc.returncode in (0, 1):
            result["manifest"] = read_manifest(out, name)
            return result
        if proc.returncode == USAGE:
            fatal.add([{**result, "stderr": stderr[-STDERR_TAIL:]}])
            return result
        raise TaskFailed(
            f"robots-census task {index} ({name}) exited {proc.returncode}"
            f" ({'transient: worth retrying' if proc.returncode == TRANSIENT else 'retrying'}):\n"
            + stderr[-STDERR_TAIL:]
        )

    return run_task


def run_tasks(sc, rdd, fatal):
    """Collects the tasks' results; cancels the job as soon as one task exits 2.
    Returns (results or None, the exception that ended the job or None)."""
    from pyspark import InheritableThread

    group = f"robots-census-{os.getpid()}-{time.time_ns()}"
    outcome = {}

    def collect():
        sc.setJobGroup(group, "robots-census tasks", interruptOnCancel=True)
        try:
            outcome["results"] = rdd.collect()
        except Exception as e:  # the job failed or was cancelled: reported by the caller
            outcome["error"] = e

    thread = InheritableThread(target=collect, daemon=True)
    thread.start()
    cancelled = False
    while thread.is_alive():
        thread.join(0.5)
        if fatal.value and not cancelled:
            sc.cancelJobGroup(group)
            cancelled = True
    return outcome.get("results"), outcome.get("error")


def check_committed(results, tasks, out):
    """Every planned task came back exactly once as committed, its manifest naming it.
    Returns a list of problems (empty when all is well)."""
    problems = []
    by_index = {r["index"]: r for r in results}
    for task in tasks:
        r = by_index.get(task["index"])
        if r is None:
            problems.append(f"task {task['index']} ({task['name']}) returned no result")
        elif r["exit"] not in (0, 1):
            problems.append(f"task {task['index']} ({task['name']}) exited {r['exit']}")
        elif "://" not in out:
            manifest = r.get("manifest")
            if manifest is None:
                problems.append(f"task {task['index']} ({task['name']}): no manifest in {out}/_manifests/")
            elif manifest.get("task") != task["name"] or manifest.get("index") != task["index"]:
                problems.append(f"task {task['index']}: the manifest names {manifest.get('task')!r}")
    return problems


def status(binary, out):
    """`robots-census status OUT --json`: (exit code, report or None). Writes _SUCCESS."""
    proc = subprocess.run([binary, "status", out, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sys.stderr.write(proc.stderr.decode("utf-8", "replace"))
    try:
        report = json.loads(proc.stdout.decode("utf-8"))
    except ValueError:
        report = None
    return proc.returncode, report


def main(argv):
    from pyspark import AccumulatorParam, SparkContext

    explicit_binary, run_args = parse_job_args(argv)

    class ListParam(AccumulatorParam):
        def zero(self, value):
            return []

        def addInPlace(self, a, b):
            return a + b

    sc = SparkContext(appName="robots-census")
    try:
        binary = find_binary(explicit_binary)
        task_cpus = int(sc.getConf().get("spark.task.cpus", "1"))
        args = task_args(run_args, task_cpus)
        header, tasks = plan(binary, args)
        out, n_tasks = header["out"], header["tasks"]
        print(
            f"robots_census_spark: {header['inputs']} inputs, {n_tasks} tasks of"
            f" {header['inputs_per_task']} inputs, settings {header['fingerprint']}, out {out}",
            file=sys.stderr,
        )
        fatal = sc.accumulator([], ListParam())
        elements = [(t["index"], t["name"]) for t in tasks]
        rdd = sc.parallelize(elements, max(1, n_tasks)).map(
            make_task_runner(explicit_binary, args, n_tasks, out, fatal)
        )
        started = time.monotonic()
        results, error = run_tasks(sc, rdd, fatal)
        elapsed = time.monotonic() - started
        if fatal.value:
            for f in fatal.value:
                print(
                    f"robots_census_spark: task {f['index']} ({f['task']}) exited {f['exit']}"
                    f" (not retried):\n{f.get('stderr', '')}",
                    file=sys.stderr,
                )
            return USAGE
        if results is None:
            print(f"robots_census_spark: the job failed after Spark's retries: {error}", file=sys.stderr)
            status(binary, out)
            print("robots_census_spark: run the job again; committed tasks are skipped", file=sys.stderr)
            return TRANSIENT
        problems = check_committed(results, tasks, out)
        code, report = status(binary, out)
        if code != 0 and not problems:
            problems.append(
                f"every task reported committed, but `robots-census status {out}` says the dataset"
                " is incomplete: is --out shared by every executor (s3:// or a shared file system)?"
            )
        for p in problems:
            print(f"robots_census_spark: {p}", file=sys.stderr)
        if problems:
            return USAGE
        summary = {
            "tasks": n_tasks,
            "seconds": round(elapsed, 3),
            "exit_codes": sorted({r["exit"] for r in results}),
            # Tasks whose committed attempt was not their first (Spark retried them).
            "retried": sum(1 for r in results if r.get("attempt", 0) > 0),
            "status": report,
        }
        print(json.dumps(summary))
        return 1 if any(r["exit"] == 1 for r in results) else 0
    finally:
        sc.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
