"""Mutation fuzz of the input readers: damaged WARC / CSV files in, robots-census run on each.

Seeds are the WARC samples of ``<shared>/corpus/warc`` (lz4 excluded: refused by design),
the bundled ``data-samples``, plain (decompressed) copies of the gzip ones, synthetic
Common Crawl-style files, and copies of the plain seeds compressed here as a whole (one
gzip member, one zstd frame) and per record (one zstd frame each), so every seed kind
(``plain``, ``gzip``, ``gzip-whole``, ``zstd``, ``zstd-whole``) gets mutants. Each seed is
run once unmutated: its ``documents`` rows (URL, body SHA-1, record byte range) are the
ground truth. Each mutant applies one damage (byte flips, zero- or LF-filled ranges,
truncation with or without zero padding, duplicated or deleted ranges, a wrong WARC
Content-Length, damage to one gzip member, junk before the first record, member or
frame) and is run with a time and a memory limit. A mutant passes when every check holds;
a failure is counted under each check it breaks:

- ``exit``: the run exits 0 or 1 (never a signal, a panic, or a fatal 2);
- ``timeout``, ``rss``: it stays under the time and memory limits;
- ``accounting``: records_seen = documents + skipped_total + problems in the manifest;
- ``lost_intact``: every record of the seed whose bytes the mutation did not touch is
  still a document with the same URL and content_sha1 (as a multiset: a duplicated range
  may add copies);
- ``offset_missing``: every input row of ``errors`` has a ``file_offset``;
- ``offset_outside_file``: every input row's ``file_offset`` is a byte of the mutant
  (0 <= offset < its size);
- ``offset_outside_record``: an input row on a document (a warning) points into that
  document's record: inside its ``file_offset .. + file_length`` when the length is
  known, else (a record inside a larger gzip member or zstd frame) at the start of a
  member or frame (its magic bytes).

"Touched" is judged in the seed's file coordinates: a record's byte range is its
``file_offset .. + file_length`` (plain record, gzip member, zstd frame). For a file
compressed as a whole, a record is untouched when the bytes decompressed from the file
before the first mutated byte hold all of it (``gzip -dc`` / ``zstd -dc`` of that
prefix: what a streaming decoder gives before the damage).

Usage: ``python scripts/fuzz_inputs.py --bin target/release/robots-census --shared ../shared``
(``make fuzz-inputs``); ``--per-kind`` runs ``--count`` mutants of each seed kind, the
kinds in turn, so that a run stopped by Ctrl-C or SIGTERM (a time budget) still writes
its summary, of the mutants that ran, with as many of each kind. It
needs the ``zstd`` command. Failing mutants are kept in ``--out`` with a JSON line each
in ``failures.jsonl``; ``summary.json`` holds the counts by kind, mutation, outcome and
failed check.
"""

import argparse
import collections
import gzip
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import pyarrow.parquet as pq

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
GZIP_MAGIC = b"\x1f\x8b\x08"


# ---------------------------------------------------------------- running the binary


def run_measured(binary, path, out, time_limit, mem_limit):
    """Runs ``robots-census run`` on one file under an address-space limit; returns (exit
    code, -signal or "timeout"; seconds; the child's own peak RSS in KiB from wait4;
    stderr text)."""

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))

    start = time.monotonic()
    with tempfile.TemporaryFile() as errf:
        proc = subprocess.Popen(
            [binary, "run", str(path), "--out", str(out), "--quiet", "--threads", "1"],
            stdout=subprocess.DEVNULL,
            stderr=errf,
            preexec_fn=limits,
        )
        deadline = start + time_limit
        status, usage, timed_out = None, None, False
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    timed_out = True
                    os.kill(proc.pid, signal.SIGKILL)
                    _, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.005)
        except KeyboardInterrupt:
            # The run is being stopped: no child is left behind.
            os.kill(proc.pid, signal.SIGKILL)
            os.wait4(proc.pid, 0)
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read().decode("utf-8", "replace")
    seconds = time.monotonic() - start
    code = "timeout" if timed_out else proc.returncode
    return code, seconds, usage.ru_maxrss, err


def read_documents(out):
    """[(url, content_sha1, file_offset, file_length, stream_offset, doc_id)] in record
    order."""
    rows = []
    # Hive layout: documents/crawl=<CRAWL>/task-<i>-<hash>.parquet (one input, one task).
    cols = ["url", "content_sha1", "file_offset", "file_length", "stream_offset", "doc_id"]
    for part in sorted((Path(out) / "documents").glob("*/*.parquet")):
        t = pq.read_table(part, columns=cols).to_pylist()
        rows.extend(tuple(r[c] for c in cols) for r in t)
    return rows


def read_input_errors(out):
    """[(doc_id, code, file_offset)] of the input rows of ``errors``."""
    rows = []
    for part in sorted((Path(out) / "errors").glob("*/*.parquet")):
        t = pq.read_table(part, columns=["doc_id", "origin", "code", "file_offset"]).to_pylist()
        rows.extend((r["doc_id"], r["code"], r["file_offset"]) for r in t if r["origin"] == "input")
    return rows


def read_manifest(out):
    """The one input's report of the one task's manifest, with `skipped_total`."""
    files = list((Path(out) / "_manifests").glob("*.json"))
    if len(files) != 1:
        return None
    inputs = json.loads(files[0].read_text()).get("inputs", [])
    if len(inputs) != 1:
        return None
    report = inputs[0]
    report["skipped_total"] = sum(report.get("skipped", {}).values())
    return report


# ---------------------------------------------------------------- seeds and ground truth


def gzip_members(data):
    """[(start, end)] of the gzip members of ``data`` (stops at the first bad one)."""
    members, pos = [], 0
    while pos < len(data) and data[pos : pos + 3] == GZIP_MAGIC:
        d = zlib.decompressobj(31)
        try:
            d.decompress(data[pos:])
        except zlib.error:
            break
        if not d.eof:
            break
        end = len(data) - len(d.unused_data)
        members.append((pos, end))
        pos = end
    return members


def decompress_prefix(data, kind):
    """Bytes of decompressed stream that the first len(data) file bytes determine: what
    ``gzip -dc`` / ``zstd -dc`` write of them before they fail."""
    if kind == "gzip":
        out, pos = bytearray(), 0
        while pos < len(data):
            d = zlib.decompressobj(31)
            try:
                out += d.decompress(data[pos:])
            except zlib.error:
                break
            if not d.eof:
                break
            pos = len(data) - len(d.unused_data)
        return len(out)
    if kind == "zstd":
        return len(zstd_cli(["-dc"], data, check=False))
    return len(data)


def zstd_cli(args, data, check=True):
    """The ``zstd`` command's stdout for ``data`` on stdin."""
    run = subprocess.run(["zstd", "-q", *args], input=data, capture_output=True)
    if check and run.returncode != 0:
        raise RuntimeError(f"zstd {args}: {run.stderr.decode(errors='replace')}")
    return run.stdout


class Seed:
    def __init__(self, name, data, suffix, layout=None):
        self.name = name
        self.data = data
        self.suffix = suffix
        if data.startswith(b"\x1f\x8b"):
            self.kind = "gzip"
        elif data.startswith(ZSTD_MAGIC) or data[1:4] == b"\x2a\x4d\x18":
            self.kind = "zstd"
        else:
            self.kind = "plain"
        self.members = gzip_members(data) if self.kind == "gzip" else []
        if layout is None and self.kind == "gzip":
            layout = "whole" if len(self.members) == 1 else None
        # The kind mutants are counted by: plain, gzip, gzip-whole, zstd, zstd-whole.
        self.label = self.kind + ("-whole" if layout == "whole" else "")
        self.is_csv = ".csv" in suffix
        self.truth = []


def load_seeds(shared, samples):
    seeds = []
    corpus = Path(shared) / "corpus" / "warc"
    for p in sorted(corpus.rglob("*")):
        if p.is_file() and p.suffix != ".lz4" and p.name != "manifest.csv" and "licenses" not in p.parts:
            seeds.append(Seed(str(p.relative_to(corpus)), p.read_bytes(), "".join(p.suffixes)))
    for p in sorted(Path(samples).glob("*")):
        if p.is_file() and (".warc" in p.name or ".csv" in p.name):
            seeds.append(Seed("data-samples/" + p.name, p.read_bytes(), "".join(p.suffixes)))
    seeds.extend(synthetic_seeds())
    # Plain copies of the gzip seeds: the plain readers see the same records.
    for s in list(seeds):
        if s.kind == "gzip" and s.members:
            plain = b"".join(gzip.decompress(s.data[a:b]) for a, b in s.members)
            suffix = ".csv" if ".csv" in s.suffix else ".warc"
            seeds.append(Seed(s.name + ":plain", plain, suffix))
    # The bundled samples and the synthetic files compressed as a whole: damage inside
    # one member / frame must keep every record decoded before it.
    for s in list(seeds):
        same_as_synthetic = s.name.startswith("synthetic/") and s.name.endswith(":plain")
        if s.kind == "plain" and s.name.startswith(("data-samples/", "synthetic/")) \
                and not same_as_synthetic:
            base = s.suffix
            seeds.append(Seed(s.name + ":whole.zst", zstd_cli(["-c", "-3"], s.data),
                              base + ".zst", "whole"))
            if not any(t.name == s.name.removesuffix(":plain") and t.label == "gzip-whole"
                       for t in seeds):
                seeds.append(Seed(s.name + ":whole.gz", gzip.compress(s.data, mtime=0),
                                  base + ".gz", "whole"))
    return seeds


def synthetic_seeds():
    """Common Crawl-style files made here: many small records, so most mutations leave
    many records intact to check (the corpus samples hold few robots.txt responses)."""
    rng = random.Random(7)
    records = []

    def record(warc_type, uri, block):
        head = (
            f"WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: <urn:uuid:{len(records)}>\r\n"
            f"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: {uri}\r\n"
            f"Content-Type: application/http\r\nContent-Length: {len(block)}\r\n\r\n"
        ).encode()
        records.append(head + block + b"\r\n\r\n")

    record("warcinfo", "", b"software: fuzz_inputs.py\r\n")
    rows = []
    for i in range(60):
        uri = f"https://h{i}.example/robots.txt"
        status = rng.choice([200, 200, 200, 404, 301, 503])
        body = "".join(
            f"User-agent: {rng.choice(['*', 'GPTBot', 'CCBot'])}\nDisallow: /p{i}/{j}\n"
            for j in range(rng.randint(1, 6))
        ).encode()
        record("request", uri, f"GET /robots.txt HTTP/1.1\r\nHost: h{i}.example\r\n\r\n".encode())
        http = f"HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\n\r\n".encode()
        record("response", uri, http + body)
        rows.append(f'{uri},{status},"{body.decode()}"\n')
    plain = b"".join(records)
    per_record = b"".join(gzip.compress(r, mtime=0) for r in records)
    per_frame = b"".join(zstd_cli(["-c", "-3"], r) for r in records)
    csv = ("url,status,body\n" + "".join(rows)).encode()
    return [
        Seed("synthetic/cc-style.warc", plain, ".warc"),
        Seed("synthetic/cc-style.warc.gz", per_record, ".warc.gz"),
        Seed("synthetic/cc-style.warc.zst", per_frame, ".warc.zst"),
        Seed("synthetic/dump.csv", csv, ".csv"),
    ]


# ---------------------------------------------------------------- mutations


def warc_content_lengths(data):
    """Offsets (start, end) of the value of each WARC header's Content-Length."""
    spans = []
    for m in re.finditer(rb"(?m)^WARC/[0-9.]+\r?\n", data):
        head_end = data.find(b"\r\n\r\n", m.end())
        if head_end < 0 or head_end - m.end() > 8192:
            continue
        cl = re.search(rb"(?im)^Content-Length:[ \t]*([0-9]+)", data[m.end() : head_end])
        if cl:
            spans.append((m.end() + cl.start(1), m.end() + cl.end(1), m.start()))
    return spans


def new_length(rng, old, rest):
    return rng.choice(
        [
            old + 1, old + 4, old + 20, old + rng.randint(50, 5000), old + rest,
            old + rest + 1000, max(old - 1, 0), max(old - 20, 0), 0,
            rng.randint(0, 10**6), 10**12, 2**64 + 5,
        ]
    )


def mutate(rng, seed):
    """Returns (mutation name, mutant bytes, touched original ranges [(a, b)], insert points)."""
    data = seed.data
    n = len(data)
    ops = ["flip", "zero", "lf", "truncate", "truncate_pad", "duplicate", "delete"]
    if seed.kind == "plain" and warc_content_lengths(data[:200000]):
        ops += ["content_length"] * 3
        # Issue 22: a length whose end lands a few bytes off a later record's start.
        ops += ["cl_near_boundary"] * 3
    ops += ["ff_run"]
    if not seed.is_csv or seed.kind != "plain":
        # Issue 22: a few bytes before the first record / member; issue 63: before the
        # first member / frame of a compressed CSV too.
        ops += ["junk_prefix"] * 2
    if seed.kind == "gzip" and len(seed.members) > 1:
        ops += ["gzip_member"] * 3
        if warc_content_lengths(gzip.decompress(data[: seed.members[0][1]])):
            ops += ["gzip_content_length"]
    op = rng.choice(ops)

    def span(maxlen):
        a = rng.randrange(n)
        length = rng.choice([1, 2, 4, 16, 64, 256, 1024, rng.randint(1, maxlen)])
        return a, min(n, a + length)

    if op == "flip":
        out = bytearray(data)
        touched = []
        for _ in range(rng.choice([1, 1, 2, 4, 8])):
            i = rng.randrange(n)
            out[i] ^= rng.randint(1, 255)
            touched.append((i, i + 1))
        return op, bytes(out), touched
    if op in ("zero", "lf"):
        a, b = span(4096)
        fill = b"\0" if op == "zero" else b"\n"
        return op, data[:a] + fill * (b - a) + data[b:], [(a, b)]
    if op == "ff_run":
        # A run of one non-separator byte written over headers (issue 22: 0xFF over two
        # headers made one header of both).
        a, b = span(16384)
        fill = bytes([rng.choice([0xFF, 0x20, ord("x")])])
        return op, data[:a] + fill * (b - a) + data[b:], [(a, b)]
    if op == "junk_prefix":
        junks = [b"\r\n" * 35000, b"\0" * 16]
        if not seed.is_csv:
            junks.append(b"WARC/1.0\r\n")
        if seed.kind == "gzip":
            # Another format's magic before a file whose name says gzip. (Before a plain
            # file, a magic makes it read as that format: not recovered, see README.)
            junks += [b"\x28\xb5\x2f\xfd", b"\x1f\x8b" * rng.randint(1, 40000)]
        if seed.kind == "zstd":
            junks.append(b"\x1f\x8b\x08\x00")
        junk = rng.choice(junks + [bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))])
        # The seed's bytes follow whole: every record is intact.
        return op, junk + data, []
    if op == "cl_near_boundary":
        spans = warc_content_lengths(data[:200000])
        k = rng.randrange(len(spans))
        s, e, rec = spans[k]
        later = [r for _, _, r in spans[k + 1:]]
        if not later:
            return "cl_near_boundary:none", data, []
        target = rng.choice(later)
        block_start = data.find(b"\r\n\r\n", e) + 4
        # -4 lands exactly on the terminator before the later record: indistinguishable
        # from a record whose block holds WARC records, so it is not asked.
        end = target + rng.choice([-3, -2, -1, 1, 2, 3])
        value = str(max(end - block_start, 0)).encode()
        return op, data[:s] + value + data[e:], [(rec, e)]
    if op == "truncate":
        c = rng.randrange(n)
        return op, data[:c], [(c, n)]
    if op == "truncate_pad":
        c = rng.randrange(n)
        return op, data[:c] + b"\0" * (n - c), [(c, n)]
    if op == "duplicate":
        a, b = span(8192)
        c = rng.randrange(n + 1)
        return op, data[:c] + data[a:b] + data[c:], [(c, c)]
    if op == "delete":
        a, b = span(8192)
        return op, data[:a] + data[b:], [(a, b)]
    if op == "content_length":
        spans = warc_content_lengths(data[:200000])
        s, e, rec = rng.choice(spans)
        old = int(data[s:e])
        value = str(new_length(rng, old, n - e)).encode()
        return op, data[:s] + value + data[e:], [(rec, e)]
    if op == "gzip_member":
        k = rng.randrange(len(seed.members))
        a, b = seed.members[k]
        member = bytearray(data[a:b])
        how = rng.choice(["crc", "isize", "header", "deflate", "cut", "junk_before", "bfinal"])
        if how == "crc":
            member[-8 + rng.randrange(4)] ^= rng.randint(1, 255)
        elif how == "isize":
            member[-4 + rng.randrange(4)] ^= rng.randint(1, 255)
        elif how == "header":
            member[rng.randrange(min(10, len(member)))] ^= rng.randint(1, 255)
        elif how == "deflate":
            member[rng.randrange(10, max(11, len(member) - 8))] ^= 1 << rng.randrange(8)
        elif how == "bfinal":
            member[10] ^= 1
        elif how == "cut":
            member = member[: rng.randrange(len(member))]
        else:
            member = bytearray(os.urandom(rng.randint(1, 300))) + member
            return f"{op}:{how}", data[:a] + bytes(member) + data[b:], [(a, a)]
        return f"{op}:{how}", data[:a] + bytes(member) + data[b:], [(a, b)]
    # gzip_content_length: rewrite one member's WARC Content-Length and recompress it.
    k = rng.randrange(len(seed.members))
    a, b = seed.members[k]
    plain = gzip.decompress(data[a:b])
    spans = warc_content_lengths(plain)
    if not spans:
        return "gzip_content_length:none", data, []
    s, e, _ = rng.choice(spans)
    value = str(new_length(rng, int(plain[s:e]), len(plain) - e)).encode()
    member = gzip.compress(plain[:s] + value + plain[e:], mtime=0)
    return op, data[:a] + member + data[b:], [(a, b)]


def intact_records(seed, touched):
    """The truth rows whose bytes no touched range overlaps."""
    if not touched:
        return [(url, sha) for url, sha, *_ in seed.truth]
    if seed.is_csv and seed.kind == "plain":
        # The header row names the columns of every row: damage there touches them all.
        header_end = seed.data.find(b"\n") + 1
        if any(a <= header_end for a, _ in touched):
            return []
    first = min(a for a, _ in touched)
    prefix = None
    out = []
    for i, (url, sha, off, length, _soff, _id) in enumerate(seed.truth):
        if length:
            lo, hi = off, off + length
            if seed.is_csv:
                # A CSV row starts after the line break before it: that break is part
                # of the row's boundary (a flipped LF joins two rows on one line).
                lo = max(0, lo - 2)
            hit = any(a < hi and b > lo if b > a else lo < a < hi for a, b in touched)
            if not hit:
                out.append((url, sha))
            continue
        # Inside a member that holds several records: decompressed-prefix test.
        if seed.kind == "plain":
            continue
        if prefix is None:
            prefix = decompress_prefix(seed.data[:first], seed.kind)
        nxt = seed.truth[i + 1][4] if i + 1 < len(seed.truth) else None
        if nxt is not None and nxt <= prefix:
            out.append((url, sha))
    return out


# ---------------------------------------------------------------- the loop


def offset_failures(mutant, docs, errors):
    """The offset checks of the input rows of ``errors``: [(check, detail)]."""
    size = len(mutant)
    records = {d[5]: (d[2], d[3]) for d in docs}
    found = []
    for doc_id, code, off in errors:
        if off is None:
            found.append(("offset_missing", f"{code}: null file_offset"))
            continue
        if not 0 <= off < max(size, 1):
            found.append(("offset_outside_file", f"{code} at {off} in a {size}-byte file"))
            continue
        if doc_id is None or doc_id not in records:
            continue
        start, length = records[doc_id]
        if length:
            if not start <= off < start + length:
                found.append(("offset_outside_record",
                              f"{code} at {off}, its record at {start}..{start + length}"))
        elif not mutant.startswith((GZIP_MAGIC, ZSTD_MAGIC), off):
            # No length: a record inside a larger member / frame (a plain record and a
            # CSV row always have one).
            found.append(("offset_outside_record",
                          f"{code} at {off}: no gzip member or zstd frame starts there"))
    return found


def check(binary, path, out, seed, touched, args):
    """(outcome, [(check, detail)]) of one mutant's run."""
    code, seconds, rss_kib, err = run_measured(binary, path, out, args.time_limit, args.mem_limit)
    problems = []
    if code == "timeout":
        return "timeout", [("timeout", f"over {args.time_limit}s")]
    if "panicked" in err:
        problems.append(("exit", "panic: " + err.strip().splitlines()[0][:300]))
    if not isinstance(code, int) or code < 0:
        return "crash", [("exit", f"exit {code}: {err[-300:]}")]
    if code not in (0, 1):
        problems.append(("exit", f"exit {code}: {err.strip()[-300:]}"))
    if rss_kib > args.rss_limit_mib * 1024:
        problems.append(("rss", f"peak RSS {rss_kib // 1024} MiB"))
    m = read_manifest(out)
    if m is None:
        problems.append(("accounting", "no manifest"))
    elif m["records_seen"] != m["documents"] + m["skipped_total"] + m["problems"]:
        problems.append(("accounting",
            f"seen {m['records_seen']} != {m['documents']} + "
            f"{m['skipped_total']} + {m['problems']}"
        ))
    rows = read_documents(out)
    docs = collections.Counter((u, s) for u, s, *_ in rows)
    want = collections.Counter(intact_records(seed, touched))
    lost = want - docs
    if lost:
        problems.append(("lost_intact", f"lost {sum(lost.values())} intact: {list(lost)[:3]}"))
    problems += offset_failures(path.read_bytes(), rows, read_input_errors(out))
    if problems:
        return "fail", problems
    return f"exit{code}", [("ok", f"{seconds:.2f}s")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/robots-census")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--samples", default="data-samples")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--out", default="fuzz-out")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--mem-limit", type=int, default=8 << 30, help="RLIMIT_AS bytes")
    ap.add_argument("--rss-limit-mib", type=int, default=1024)
    ap.add_argument("--per-kind", action="store_true",
                    help="run --count mutants of each seed kind (plain, gzip, gzip-whole, "
                         "zstd, zstd-whole) instead of --count in all")
    ap.add_argument("--kinds", default="",
                    help="comma-separated seed kinds to mutate (default: all)")
    args = ap.parse_args()

    out_dir = Path(args.out)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    (out_dir / "failing").mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="fuzz-inputs-"))
    rng = random.Random(args.seed)

    seeds = load_seeds(args.shared, args.samples)
    for s in seeds:
        path = work / ("seed" + s.suffix)
        path.write_bytes(s.data)
        res = work / "seed-out"
        shutil.rmtree(res, ignore_errors=True)
        code, _, _, err = run_measured(args.bin, path, res, args.time_limit, args.mem_limit)
        s.truth = read_documents(res)
        print(f"seed {s.name} ({s.label}, {len(s.data)} bytes): exit {code}, "
              f"{len(s.truth)} documents", flush=True)
    seeds = [s for s in seeds if s.data]
    kinds = sorted({s.label for s in seeds})
    if args.kinds:
        kinds = [k for k in kinds if k in args.kinds.split(",")]
    if args.per_kind:
        # Kinds in turn, so that a run stopped early has as many mutants of each.
        plan = [k for _ in range(args.count) for k in kinds]
    else:
        plan = [None] * args.count

    tally = Tally()
    failures = open(out_dir / "failures.jsonl", "w")
    started = time.monotonic()
    # SIGTERM (a time budget) stops the run as Ctrl-C does: the summary counts what ran.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for i, kind in enumerate(plan):
            run_one(i, kind, seeds, kinds, rng, work, out_dir, failures, args, tally)
            if (i + 1) % 250 == 0:
                print(f"{i + 1} mutants, {dict(tally.counts)}, failed checks "
                      f"{dict(tally.by_check)}, {time.monotonic() - started:.0f}s", flush=True)
    except KeyboardInterrupt:
        print(f"stopped after {sum(tally.counts.values())} of {len(plan)} mutants", flush=True)
    failures.close()
    summary = {
        "mutants": sum(tally.counts.values()),
        "planned": len(plan),
        "seeds": {s.name: s.label for s in seeds},
        "outcomes": dict(tally.counts),
        "failed_checks": dict(tally.by_check),
        "by_kind": {k: dict(v) for k, v in sorted(tally.by_kind.items())},
        "failed_checks_by_kind": {k: dict(v) for k, v in sorted(tally.by_check_kind.items())},
        "by_mutation": {k: dict(v) for k, v in sorted(tally.by_op.items())},
        "seconds": round(time.monotonic() - started),
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    shutil.rmtree(work, ignore_errors=True)
    bad = sum(v for k, v in tally.counts.items() if k not in ("exit0", "exit1"))
    sys.exit(1 if bad else 0)


class Tally:
    """Outcomes counted in all, by mutation, by seed kind and by failed check."""

    def __init__(self):
        self.counts = collections.Counter()
        self.by_op = collections.defaultdict(collections.Counter)
        self.by_kind = collections.defaultdict(collections.Counter)
        self.by_check = collections.Counter()
        self.by_check_kind = collections.defaultdict(collections.Counter)


def run_one(i, kind, seeds, kinds, rng, work, out_dir, failures, args, tally):
    """Mutant ``i`` of a seed of ``kind`` (any kind when None): made, run, checked, counted."""
    pool = [s for s in seeds if s.label == kind or (kind is None and s.label in kinds)]
    # Seeds with more documents to check get more mutants.
    weights = [1 + min(len(s.truth), 20) for s in pool]
    seed = rng.choices(pool, weights)[0]
    op, mutant, touched = mutate(rng, seed)
    path = work / f"mutant{seed.suffix}"
    path.write_bytes(mutant)
    res = work / "out"
    shutil.rmtree(res, ignore_errors=True)
    outcome, detail = check(args.bin, path, res, seed, touched, args)
    tally.counts[outcome] += 1
    tally.by_op[op.split(":")[0]][outcome] += 1
    tally.by_kind[seed.label][outcome] += 1
    failed = sorted({name for name, _ in detail if outcome not in ("exit0", "exit1")})
    for name in failed:
        tally.by_check[name] += 1
        tally.by_check_kind[seed.label][name] += 1
    if outcome not in ("exit0", "exit1"):
        keep = out_dir / "failing" / f"{i:05d}{seed.suffix}"
        shutil.copy(path, keep)
        failures.write(json.dumps({"mutant": i, "seed": seed.name, "kind": seed.label,
                                   "op": op, "touched": touched, "outcome": outcome,
                                   "checks": failed, "detail": [d for _, d in detail],
                                   "file": str(keep)}) + "\n")
        failures.flush()
        print(f"[{i}] {seed.name} {op}: {outcome} {detail[:4]}", flush=True)


if __name__ == "__main__":
    main()
