"""Answer single questions from one library, for minimising a disagreement.

Reads JSON lines {"body_hex", "agent", "url"} on stdin and prints one line per
question: "1" allowed, "0" disallowed, "E" the library raised. The library is asked
as tests/oracle/profile_answers.py asks it.

Usage: ask_one.py urllib|protego
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "profile_answers", os.path.join(HERE, "profile_answers.py"))
profile_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_answers)


def main():
    ask = {"urllib": profile_answers.ask_urllib, "protego": profile_answers.ask_protego}[sys.argv[1]]
    for line in sys.stdin:
        q = json.loads(line)
        answer, _ = ask(bytes.fromhex(q["body_hex"]), [q["agent"]], [q["url"]])
        print(answer, flush=True)


if __name__ == "__main__":
    main()
