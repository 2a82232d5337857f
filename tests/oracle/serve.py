"""Google's parser as a long-running oracle: the far end of the generative
differential test (tests/it/generative/).

Reads one JSON object per line on stdin, {"body": hex, "agents": [hex], "urls": [hex]},
and writes one line per request on stdout, {"allowed": "0101...", "lines": [int]}:
the answer fields of answers.py's records, agent-major. The body is cut at
512,000 bytes before asking, as Google does in production and answers.py does.
Ends at end of input.

Usage: serve.py   (the Rust test starts it with the venv's Python)
"""

import json
import sys

from answers import CAP, ask
from jwm.robotstxt import googlebot


def main():
    matcher = googlebot.RobotsMatcher()
    read, out = sys.stdin.buffer.readline, sys.stdout
    while line := read():
        request = json.loads(line)
        body = bytes.fromhex(request["body"])[:CAP]
        agents = [bytes.fromhex(a) for a in request["agents"]]
        urls = [bytes.fromhex(u) for u in request["urls"]]
        out.write(json.dumps(ask(matcher, body, agents, urls)) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
