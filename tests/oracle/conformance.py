"""Check the conformance tests' expectations against Google's parser (robots.cc).

The Rust tests in tests/it/conformance.rs record every expectation when
ROBOTS_CENSUS_CONFORMANCE_DUMP names a file:

    ROBOTS_CENSUS_CONFORMANCE_DUMP=/tmp/cases.jsonl cargo test conformance -- --include-ignored
    python tests/oracle/conformance.py /tmp/cases.jsonl

Each case is asked of jwm-robotstxt (body cut at 512,000 bytes, as Google does in
production). Prints every disagreement with its test name; ignored tests are the
ones expected to disagree. Exit status 1 when a non-ignored test disagrees.
"""

import json
import re
import sys
from pathlib import Path

from jwm.robotstxt import googlebot

CAP = 512_000


def ignored_tests(source):
    """Names of the tests marked #[ignore] in conformance.rs."""
    return set(re.findall(r"#\[ignore[^\]]*\]\s*fn (\w+)", source))


def main(dump):
    source = (Path(__file__).resolve().parents[1] / "it/conformance.rs").read_text()
    ignored = ignored_tests(source)
    cases, bad = 0, 0
    for record in Path(dump).read_text().splitlines():
        case = json.loads(record)
        body = bytes.fromhex(case["body"])[:CAP]
        url = bytes.fromhex(case["url"])
        m = googlebot.RobotsMatcher()
        allowed = m.OneAgentAllowedByRobots(body, case["agent"].encode(), url)
        got = (allowed, m.matching_line())
        want = (case["allowed"], case["line"])
        cases += 1
        if got != want:
            test = case["test"].split("::")[-1]
            tag = "ignored, differs as documented" if test in ignored else "MISMATCH"
            bad += test not in ignored
            print(f"{tag}: {case['test']}: agent {case['agent']!r} url {url!r}: robots.cc {got}, test {want}")
    print(f"{cases} cases, {bad} mismatches outside ignored tests")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
