"""robots-census in Python: Google's robots.txt semantics, parsed once, asked many times.

    >>> import robots_census
    >>> robots = robots_census.RobotsTxt(b"User-agent: *\\nDisallow: /private\\n")
    >>> robots.allowed("Googlebot", "https://example.com/private/x")
    False
    >>> robots.explain("Googlebot", "/private/x").line
    2

Every answer is the one Google's parser (robots.cc) gives, from the same engine the
``robots-census`` command runs (installed by the same wheel). The first 500 KiB of a
body are parsed, as Google does.
"""

from __future__ import annotations

import os as _os
from typing import Iterable as _Iterable
from typing import Union as _Union

from ._cli import Flag as _Flag
from ._cli import RunError, flag_args as _flag_args, run_cli as _run_cli
from ._native import (
    Finding,
    Group,
    RobotsTxt,
    Signal,
    Sitemap,
    Verdict,
    VerdictBatch,
    check_many,
    profiles,
    version,
)

PROFILES = tuple(profiles())
"""The interpretation profiles ``RobotsTxt.explain(..., profile=)`` and ``readings`` take:
"google" (robots.cc) first, then other crawler families' parsers (urllib, protego, ccbot, ...)."""

__all__ = [
    "PROFILES",
    "Finding",
    "Group",
    "RobotsTxt",
    "RunError",
    "Signal",
    "Sitemap",
    "Verdict",
    "VerdictBatch",
    "check_many",
    "run",
    "version",
]

__version__ = version()


def run(
    inputs: _Iterable[_Union[str, "_os.PathLike[str]"]],
    out: _Union[str, "_os.PathLike[str]"],
    **flags: _Flag,
) -> int:
    """Runs ``robots-census run INPUTS... --out OUT`` with the CLI's flags: the
    ``robots-census`` binary installed by this wheel, in a process of its own.

    Flags are the long options of ``robots-census run --help`` with ``_`` for ``-``:
    ``run(["a.warc.gz"], "out", threads=2, tables=["agents"], overwrite=True)``. True
    passes a switch, False and None leave it out, a list is joined with commas. What the
    binary prints on stderr (warnings, the summary) goes to ``sys.stderr``.

    Returns the exit code: 0 (every input read completely), 1 (some inputs or records
    were skipped: see the errors table), 2 (with ``strict=True``, when anything was
    skipped) or 75 (a transient failure: run again with ``resume=True``). Raises
    ValueError for arguments the CLI refuses and RunError (args: message, exit code)
    when the run ends with 2 or 130, with the CLI's message. On KeyboardInterrupt the
    binary is stopped as by Ctrl-C (the tasks it finished are kept) before the
    interrupt goes on.
    """
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        raise TypeError("inputs must be a list of paths or URLs, not a single one")
    args = ["run"] + [_os.fspath(i) for i in inputs]
    args += ["--out", _os.fspath(out)]
    args += _flag_args(flags)
    return _run_cli(args)
