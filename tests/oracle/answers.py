"""Ask Google's reference parser (jwm-robotstxt, robots.cc) the differential questions.

For every robots.txt body in the shared corpus, build a deterministic set of
(agent, URL) questions and record robots.cc's answer: allowed and matching line.
The Rust differential test (tests/it/differential.rs) asks robots-census the same
questions and requires identical answers.

Questions per body:
  agents: a fixed list of real crawler tokens (search, AI, the empty agent, '*',
          an unknown bot, a non-token 'Googlebot/2.1') plus up to 4 tokens the
          file itself names, so specific groups are exercised;
  urls:   the host's real page URLs from corpus/urls (where present, sampled),
          plus paths generated from the file's own allow/disallow values (the
          value itself, wildcards filled, '$' removed, extended, cut short,
          case-changed, escaped and unescaped) and fixed odd URLs (%-escapes,
          UTF-8 bytes, NUL, '?' without path, index.html, /robots.txt).

Bodies are cut at 512,000 bytes before asking, as Google does in production.

Usage: answers.py SHARED_DIR OUT_FILE [--limit N]
Output: JSON lines, one per body: {"file", "agents": [hex], "urls": [hex],
"allowed": "0101...", "lines": [int]} with answers in agent-major order.
"""

import hashlib
import json
import multiprocessing
import os
import random
import re
import sys

CAP = 512_000

AGENTS = [
    b"Googlebot", b"Googlebot-News", b"Googlebot-Image", b"Mediapartners-Google",
    b"AdsBot-Google", b"Google-Extended", b"Bingbot", b"msnbot", b"Slurp",
    b"YandexBot", b"Baiduspider", b"GPTBot", b"ChatGPT-User",
    b"ClaudeBot", b"CCBot", b"PerplexityBot", b"Bytespider",
    b"Applebot-Extended", b"*", b"", b"UnknownBot", b"googlebot", b"Googlebot/2.1",
]

FIXED_URLS = [
    b"http://example.com", b"https://example.com/", b"https://example.com/robots.txt",
    b"https://example.com/index.html", b"https://example.com/a/index.htm",
    b"https://example.com/?q=1", b"https://example.com;params", b"http://example.com?x=y",
    b"https://example.com/%7Euser/", b"https://example.com/%7euser/",
    b"https://example.com/caf%C3%A9", b"https://example.com/caf\xc3\xa9",
    b"https://example.com/a\x00b", b"//example.com/x/y", b"/relative/path",
    b"https://example.com/search?q=a#frag", b"https://example.com/#frag/x",
    b"https://example.com/a$b", b"https://example.com/*star",
]

RULE_RE = re.compile(rb"^\s*(?:dis)?allow\s*:?\s*([^#\s]+)", re.IGNORECASE | re.MULTILINE)
UA_RE = re.compile(rb"^\s*user-?agent\s*:\s*([A-Za-z_-]+)", re.IGNORECASE | re.MULTILINE)


def seeded(name):
    return random.Random(int.from_bytes(hashlib.sha1(name.encode()).digest()[:8], "big"))


def rule_paths(body, rng, limit):
    """Paths that hit (or just miss) the file's own rule patterns."""
    values = RULE_RE.findall(body)
    if len(values) > limit:
        values = rng.sample(values, limit)
    out = []
    for v in values:
        filled = v.replace(b"*", b"x")
        bare = filled[:-1] if filled.endswith(b"$") else filled
        if not bare.startswith(b"/"):
            bare = b"/" + bare
        out.append(b"https://example.com" + bare)
        out.append(b"https://example.com" + bare + b"extra/page.html?a=1")
        out.append(b"https://example.com" + bare[:-1])
        out.append(rng.choice([
            b"https://example.com" + bare.upper(),
            b"https://example.com" + bare.replace(b"%2F", b"%2f").replace(b"%20", b" "),
            b"https://example.com" + bare.replace(b"x", b"/deep/er/"),
        ]))
    return out


def questions(rel, body, urls_dir):
    rng = seeded(rel)
    big = len(body) > 100_000
    agents = list(AGENTS)
    named = []
    for token in UA_RE.findall(body):
        if token not in named and token not in agents:
            named.append(token)
    agents += named[:3]
    urls = rng.sample(FIXED_URLS, 10)
    host = os.path.basename(rel)[:-4]
    url_file = os.path.join(urls_dir, host + ".txt")
    if os.path.exists(url_file):
        with open(url_file, "rb") as f:
            real = [u.strip() for u in f if u.strip()]
        urls += rng.sample(real, min(len(real), 3 if big else 6))
    urls += rule_paths(body, rng, 3 if big else 5)
    if big:
        agents = agents[:8] + named[:2]
    return agents, urls


def answer(task):
    """The answer records of files with the same body (after the cut at CAP): robots.cc
    is asked each distinct (agent, URL) question about that body once, since its answer
    depends on nothing else. Returns [(file, JSON line)]."""
    shared, rels = task
    from jwm.robotstxt import googlebot

    with open(os.path.join(shared, "corpus", "robots", rels[0]), "rb") as f:
        body = f.read()[:CAP]
    matcher = googlebot.RobotsMatcher()
    known = {}
    lines = []
    for rel in rels:
        agents, urls = questions(rel, body, os.path.join(shared, "corpus", "urls", "anubhavp28"))
        allowed, found = [], []
        for agent in agents:
            for url in urls:
                if (agent, url) not in known:
                    known[agent, url] = ask_one(matcher, body, agent, url)
                a, line = known[agent, url]
                allowed.append(a)
                found.append(line)
        lines.append((rel, json.dumps({
            "file": rel,
            "agents": [a.hex() for a in agents],
            "urls": [u.hex() for u in urls],
            "allowed": "".join(allowed),
            "lines": found,
        })))
    return lines


def ask_one(matcher, body, agent, url):
    """robots.cc's answer to one question: ("1" or "0", the matching line)."""
    allowed = "1" if matcher.OneAgentAllowedByRobots(body, agent, url) else "0"
    return allowed, matcher.matching_line()


def ask(matcher, body, agents, urls):
    """robots.cc's answers about `body` (already cut at CAP), agent-major: the
    "allowed" and "lines" fields of an answer record."""
    answered = [ask_one(matcher, body, agent, url) for agent in agents for url in urls]
    return {"allowed": "".join(a for a, _ in answered), "lines": [line for _, line in answered]}


def main():
    shared, out = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--limit" else None
    root = os.path.join(shared, "corpus", "robots")
    files = sorted(
        os.path.join(d, f)
        for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
        for f in os.listdir(os.path.join(root, d)) if f.endswith(".txt")
    )[:limit]
    # Files with the same body (the corpus holds many copies: google.* sites, mirrors)
    # go to one worker together, which asks each distinct question once: about a
    # quarter of robots.cc's work. Records are written in file order all the same.
    by_body = {}
    for rel in files:
        with open(os.path.join(root, rel), "rb") as f:
            digest = hashlib.sha1(f.read()[:CAP]).digest()
        by_body.setdefault(digest, []).append(rel)
    done = {}
    with multiprocessing.Pool(os.cpu_count() or 2) as pool:
        for lines in pool.imap_unordered(answer, [(shared, rels) for rels in by_body.values()],
                                         chunksize=8):
            done.update(lines)
    tmp = out + ".part"
    with open(tmp, "w") as f:
        for rel in files:
            f.write(done[rel] + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
