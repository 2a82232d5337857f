"""Ask the real parser libraries of other crawler families the profile questions.

The interpretation profiles `urllib` and `protego` (crates/robots-census-engine/src/profiles/) must answer
as CPython 3.11's `urllib.robotparser` and PyPI `protego==0.7.0` do; the node script
beside this one adds npm `robots-parser`'s answers to the same file. The Rust test
tests/it/profiles.rs asks robots-census the same questions.

Bodies: every body of ../shared/corpus/robots (whole: none of these libraries cuts at
500 KiB) with the questions tests/oracle/answers.py builds for Google's parser, plus
bodies generated to split parsers (blank lines inside groups, rule order, wildcards
and `$`, %-escapes, agent substrings and prefixes, crawl-delay between rules and
between user-agent lines, stacked user-agent lines, rules before any user-agent,
CR/CRLF line ends, BOM) with agents and URLs aimed at their rules.

Each library is asked the way its own fetch path uses it:
  urllib:  RobotFileParser().parse(text.splitlines()) after read()'s UTF-8 decode
           (strict there; a body that does not decode is read with U+FFFD here, as
           the profile does), can_fetch(agent, url), crawl_delay(agent);
  protego: Protego.parse(text) after Scrapy's decode (UTF-8, errors ignored),
           can_fetch(url, agent), crawl_delay(agent).

Usage: profile_answers.py SHARED_DIR OUT_FILE [--limit N]
Output: JSON lines, one per body: {"file" (corpus path) or "body_hex", "agents",
"urls", "urllib", "protego": one char per question, agent-major, "1" allowed,
"0" disallowed, "E" the library raised; "urllib_delay", "protego_delay": per agent}.
"""

import importlib.util
import json
import multiprocessing
import os
import random
import sys
import urllib.robotparser

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("answers", os.path.join(HERE, "answers.py"))
answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(answers)

EXTRA_AGENTS = ["Mozilla/5.0 (compatible; GPTBot/1.0)", "bot", "Google", "googlebot-news"]


def text(b):
    return b.decode("utf-8", "replace")


def generated_bodies(count=1500, seed=9309):
    """Bodies built from fragments on which the families are known to part ways."""
    rng = random.Random(seed)
    agents = ["*", "Googlebot", "googlebot", "Googlebot-News", "GPTBot", "gptbot/1.0",
              "bot", "Bot", "Google", "CCBot", "bingbot", "msnbot", "YandexBot", "Yandex",
              "Applebot", "", "Mozilla/5.0", "*bot", "ChatGPT-User"]
    paths = ["/", "/a", "/a/", "/a/b", "/a/b/c", "/*.pdf", "/*.pdf$", "/a$", "/a*b",
             "/%7Euser", "/~user", "/%7euser/x", "/caf%C3%A9", "/café", "/a?b=1", "/a;p",
             "/search", "/search?q=*", "*", "/*", "", "/private/", "/p%2Fq", "/p/q",
             "/index.html", "/A", "/a%20b", "/a b", "/$", "/a/*/c"]
    keys = ["Disallow", "Allow", "disallow", "ALLOW", "Disallow ", "Disalow"]
    ends = ["\n", "\r\n", "\r"]
    for n in range(count):
        end = rng.choice(ends) if rng.random() < 0.2 else "\n"
        lines = []
        if rng.random() < 0.05:
            lines.append("\ufeff# bom")
        if rng.random() < 0.1:
            lines.append(f"Disallow: {rng.choice(paths)}")
        for _ in range(rng.randint(1, 4)):
            for _ in range(rng.randint(1, 3)):
                lines.append(f"User-agent: {rng.choice(agents)}")
                if rng.random() < 0.1:
                    lines.append(rng.choice(["", "Crawl-delay: 5", "# c"]))
            for _ in range(rng.randint(0, 5)):
                lines.append(f"{rng.choice(keys)}: {rng.choice(paths)}")
                r = rng.random()
                if r < 0.12:
                    lines.append("")
                elif r < 0.2:
                    lines.append(f"Crawl-delay: {rng.choice(['1', '10', '2.5', 'x', '31'])}")
                elif r < 0.25:
                    lines.append("   ")
            if rng.random() < 0.7:
                lines.append("")
        body = end.join(lines) + (end if rng.random() < 0.8 else "")
        urls = ["https://example.com" + (p.replace("*", "x").rstrip("$") or "/")
                for p in rng.sample(paths, 8)]
        urls += ["https://example.com/a/b/c.pdf", "https://example.com/~user/x",
                 "https://example.com/%7Euser/x", "https://example.com/caf%C3%A9",
                 "https://example.com/search?q=1", "https://example.com/index.html",
                 "https://example.com/", "http://example.com", "https://example.com/a%2Fb"]
        ask = sorted(set(a for a in agents if a != "*") | {"UnknownBot"})
        ask = rng.sample(ask, 7)
        yield f"gen/{n}", body.encode("utf-8"), ask, urls


def corpus_bodies(shared, limit):
    root = os.path.join(shared, "corpus", "robots")
    files = sorted(
        os.path.join(d, f)
        for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
        for f in os.listdir(os.path.join(root, d)) if f.endswith(".txt")
    )[:limit]
    return files


def ask_urllib(body, agents, urls):
    try:
        decoded = body.decode("utf-8")
    except UnicodeDecodeError:
        decoded = body.decode("utf-8", "replace")
    rp = urllib.robotparser.RobotFileParser()
    try:
        rp.parse(decoded.splitlines())
    except ValueError:
        return "E" * (len(agents) * len(urls)), [None] * len(agents)
    out = []
    for agent in agents:
        for url in urls:
            try:
                out.append("1" if rp.can_fetch(agent, url) else "0")
            except ValueError:
                out.append("E")
    delays = []
    for agent in agents:
        d = rp.crawl_delay(agent)
        delays.append(None if d is None else float(d))
    return "".join(out), delays


def ask_protego(body, agents, urls):
    from protego import Protego

    try:
        rp = Protego.parse(body.decode("utf-8", "ignore"))
    except Exception:  # noqa: BLE001 - any failure of the library is its answer
        return "E" * (len(agents) * len(urls)), [None] * len(agents)
    out = []
    for agent in agents:
        for url in urls:
            try:
                out.append("1" if rp.can_fetch(url, agent) else "0")
            except Exception:  # noqa: BLE001
                out.append("E")
    delays = []
    for agent in agents:
        try:
            d = rp.crawl_delay(agent)
        except Exception:  # noqa: BLE001
            d = None
        delays.append(None if d is None else float(d))
    return "".join(out), delays


def record(task):
    kind, name, payload = task
    if kind == "corpus":
        shared = payload
        with open(os.path.join(shared, "corpus", "robots", name), "rb") as f:
            body = f.read()
        agents, urls = answers.questions(name, body, os.path.join(
            shared, "corpus", "urls", "anubhavp28"))
        agents = [text(a) for a in agents] + EXTRA_AGENTS
        urls = [text(u) for u in urls]
        rec = {"file": name}
    else:
        body, agents, urls = payload
        rec = {"body_hex": body.hex()}
    rec["agents"], rec["urls"] = agents, urls
    rec["urllib"], rec["urllib_delay"] = ask_urllib(body, agents, urls)
    rec["protego"], rec["protego_delay"] = ask_protego(body, agents, urls)
    return json.dumps(rec)


def main():
    shared, out = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--limit" else None
    tasks = [("corpus", rel, shared) for rel in corpus_bodies(shared, limit)]
    tasks += [("gen", name, (body, agents, urls))
              for name, body, agents, urls in generated_bodies()]
    tmp = out + ".part"
    with multiprocessing.Pool(os.cpu_count() or 2) as pool, open(tmp, "w") as f:
        for line in pool.imap(record, tasks, chunksize=16):
            f.write(line + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
