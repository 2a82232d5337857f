"""Build the crawl-slice benchmark inputs: many Common Crawl-like robotstxt WARCs, and one
large WARC holding the same captures.

Writes, into ``<out>/crawl-slice/`` (``bench-out`` by default; never committed):

- ``crawl-data/CC-MAIN-2026-47/segments/<segment>/robotstxt/CC-MAIN-...-<n>.warc.gz``:
  ``--inputs`` files of ``--captures`` captures each, laid out like a real crawl (100
  segments), each with its own ``warcinfo`` record (``isPartOf: CC-MAIN-2026-47``) and a
  ``request``/``response`` gzip member pair per capture, the records of
  ``make_bench_corpus.py`` (same status mix, headers and corpus bodies).
- ``robotstxt.paths`` (and ``.gz``): their paths relative to ``crawl-slice/``, as Common
  Crawl publishes them, to be read with ``--inputs-from`` and ``--input-base-url``.
- ``../crawl-slice-all.warc.gz``: one ``warcinfo`` and then every capture member of all
  the files, byte for byte (their ``WARC-Warcinfo-ID`` still names their own file's
  warcinfo): the single large file the slice is compared with.
- ``slice.json``: counts and sizes.

The defaults (1,000 inputs of 1,200 captures, ~2 MB each) are the issue's crawl slice.

Usage: make_crawl_slice.py [--shared ../shared] [--out bench-out] [--inputs 1000] [--captures 1200]
"""

import argparse
import gzip
import json
import random
from pathlib import Path

from bench_common import corpus_body_paths, gzip_member
from make_bench_corpus import CRAWL, Capture, warcinfo_record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default="../shared")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--captures", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args()
    out = Path(args.out)
    root = out / "crawl-slice"
    root.mkdir(parents=True, exist_ok=True)
    bodies = [p.read_bytes() for p in corpus_body_paths(args.shared)]
    rng = random.Random(args.seed)
    order = list(range(len(bodies)))
    rng.shuffle(order)
    total = args.inputs * args.captures
    n_hosts = max(1, int(total * 0.8))
    paths = []
    sizes = 0
    with open(out / "crawl-slice-all.warc.gz", "wb") as big:
        _, info = warcinfo_record(rng, "crawl-slice-all.warc.gz")
        big.write(gzip_member(info))
        index = 0
        for n in range(args.inputs):
            segment = f"1762{n % 100:03d}00000.{n % 100}"
            name = f"{CRAWL}-20261110030000-{n:05d}.warc.gz"
            rel = f"crawl-data/{CRAWL}/segments/{segment}/robotstxt/{name}"
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            info_id, info = warcinfo_record(rng, name)
            with open(path, "wb") as small:
                small.write(gzip_member(info))
                for _ in range(args.captures):
                    cap = Capture(rng, index, n_hosts, bodies, order)
                    index += 1
                    # The same member bytes in both files (their WARC-Warcinfo-ID
                    # names the small file's warcinfo).
                    for record in cap.records(info_id):
                        member = gzip_member(record)
                        small.write(member)
                        big.write(member)
            sizes += path.stat().st_size
            paths.append(rel)
    listing = "\n".join(paths) + "\n"
    (root / "robotstxt.paths").write_text(listing)
    with gzip.open(root / "robotstxt.paths.gz", "wt") as f:
        f.write(listing)
    summary = {
        "inputs": args.inputs, "captures_per_input": args.captures, "captures": total,
        "seed": args.seed, "inputs_bytes": sizes,
        "big_bytes": (out / "crawl-slice-all.warc.gz").stat().st_size,
    }
    (root / "slice.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
