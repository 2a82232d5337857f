"""Build two hostile WARC inputs that measure peak memory, streaming, deterministically.

- ``hostile-100mb.warc.gz``: one 200 response whose robots.txt body is 100 MiB of
  ``Disallow:`` lines (Common Crawl would have cut it at 1 MiB; an archive from another
  crawler may not). A bounded pipeline reads at most its caps (500 KiB parsed) and stays
  small; a pipeline that buffers whole records holds 100 MiB or more.
- ``hostile-bomb.warc.gz``: one 200 response whose payload is stored *encoded*, with a
  real ``Content-Encoding: gzip`` header, and is 1 GiB of zeros gzip-compressed (~1 MB).
  A reader that honours the header and inflates without a cap holds 1 GiB.

Both files keep the Common Crawl layout: warcinfo, request, response, each its own gzip
member. Bodies are generated and compressed in chunks; nothing holds 100 MiB at once.

Usage: make_hostile_inputs.py [--out bench-out] [--big-mib 100] [--bomb-mib 1024]
"""

import argparse
import hashlib
import base64
import zlib
from pathlib import Path

from bench_common import gzip_member, sha1_base32, warc_header

CHUNK = 1 << 20
INFO_ID = "00000000-0000-4000-8000-000000000001"


def warcinfo(filename):
    block = b"isPartOf: hostile-inputs\r\npublisher: robots-census benchmarks\r\n"
    head = warc_header([
        ("WARC-Type", "warcinfo"), ("WARC-Date", "2026-11-10T03:00:00Z"),
        ("WARC-Filename", filename), ("WARC-Record-ID", f"<urn:uuid:{INFO_ID}>"),
        ("Content-Type", "application/warc-fields"), ("Content-Length", len(block)),
    ])
    return head + block + b"\r\n\r\n"


def request(host, req_id):
    block = f"GET /robots.txt HTTP/1.1\r\nUser-Agent: CCBot/2.0\r\nHost: {host}\r\n\r\n".encode()
    head = warc_header([
        ("WARC-Type", "request"), ("WARC-Date", "2026-11-10T03:00:01Z"),
        ("WARC-Record-ID", f"<urn:uuid:{req_id}>"), ("Content-Length", len(block)),
        ("Content-Type", "application/http; msgtype=request"),
        ("WARC-Warcinfo-ID", f"<urn:uuid:{INFO_ID}>"),
        ("WARC-Target-URI", f"https://{host}/robots.txt"),
    ])
    return head + block + b"\r\n\r\n"


def response_head(host, req_id, resp_id, http_head, payload_len, payload_digest, block_digest):
    return warc_header([
        ("WARC-Type", "response"), ("WARC-Date", "2026-11-10T03:00:01Z"),
        ("WARC-Record-ID", f"<urn:uuid:{resp_id}>"),
        ("Content-Length", len(http_head) + payload_len),
        ("Content-Type", "application/http; msgtype=response"),
        ("WARC-Warcinfo-ID", f"<urn:uuid:{INFO_ID}>"),
        ("WARC-Concurrent-To", f"<urn:uuid:{req_id}>"),
        ("WARC-IP-Address", "192.0.2.1"), ("WARC-Target-URI", f"https://{host}/robots.txt"),
        ("WARC-Payload-Digest", payload_digest), ("WARC-Block-Digest", block_digest),
        ("WARC-Identified-Payload-Type", "text/plain"),
    ])


def big_body_chunks(total):
    """``total`` bytes of robots.txt, in 1 MiB chunks, the same on every call."""
    header = b"User-agent: *\n"
    yield header
    written = len(header)
    n = 0
    while written < total:
        lines = []
        size = 0
        while size < CHUNK and written + size < total:
            line = b"Disallow: /private/section-%09d/\n" % n
            n += 1
            lines.append(line)
            size += len(line)
        chunk = b"".join(lines)[: total - written]
        written += len(chunk)
        yield chunk


def write_big(path, total):
    host = "www.huge.example"
    req_id, resp_id = "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"
    http_head = (f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                 f"Content-Length: {total}\r\n\r\n").encode()
    payload_sha, block_sha = hashlib.sha1(), hashlib.sha1(http_head)
    for chunk in big_body_chunks(total):  # first pass: digests only
        payload_sha.update(chunk)
        block_sha.update(chunk)
    digest = lambda h: "sha1:" + base64.b32encode(h.digest()).decode("ascii")  # noqa: E731
    with open(path, "wb") as out:
        out.write(gzip_member(warcinfo(path.name)))
        out.write(gzip_member(request(host, req_id)))
        comp = zlib.compressobj(6, zlib.DEFLATED, 31)  # wbits 31: one gzip member
        out.write(comp.compress(response_head(host, req_id, resp_id, http_head, total,
                                              digest(payload_sha), digest(block_sha))))
        out.write(comp.compress(http_head))
        for chunk in big_body_chunks(total):
            out.write(comp.compress(chunk))
        out.write(comp.compress(b"\r\n\r\n"))
        out.write(comp.flush())


def write_bomb(path, total):
    host = "www.bomb.example"
    req_id, resp_id = "00000000-0000-4000-8000-000000000004", "00000000-0000-4000-8000-000000000005"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(CHUNK)
    parts = [comp.compress(zeros) for _ in range(total // CHUNK)]
    parts.append(comp.flush())
    payload = b"".join(parts)  # about 1 MB for 1 GiB of zeros
    http_head = (f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n"
                 f"Content-Length: {len(payload)}\r\n\r\n").encode()
    with open(path, "wb") as out:
        out.write(gzip_member(warcinfo(path.name)))
        out.write(gzip_member(request(host, req_id)))
        head = response_head(host, req_id, resp_id, http_head, len(payload),
                             sha1_base32(payload), sha1_base32(http_head, payload))
        out.write(gzip_member(head + http_head + payload + b"\r\n\r\n"))
    return len(payload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--big-mib", type=int, default=100)
    parser.add_argument("--bomb-mib", type=int, default=1024)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_big(out / "hostile-100mb.warc.gz", args.big_mib << 20)
    bomb_len = write_bomb(out / "hostile-bomb.warc.gz", args.bomb_mib << 20)
    for name in ["hostile-100mb.warc.gz", "hostile-bomb.warc.gz"]:
        print(f"{name}: {(out / name).stat().st_size} bytes")
    print(f"bomb payload: {bomb_len} bytes gzip -> {args.bomb_mib} MiB of zeros")


if __name__ == "__main__":
    main()
