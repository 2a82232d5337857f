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

import os
from typing import Iterable, Mapping, Sequence, Union

from ._native import (
    Finding,
    Group,
    RobotsTxt,
    RunError,
    Sitemap,
    Verdict,
    VerdictBatch,
    check_many,
    profiles,
    version,
)
from ._native import run_args as _native_run

PROFILES = tuple(profiles())
"""The interpretation profiles ``RobotsTxt.explain(..., profile=)`` and ``readings`` take:
"google" (robots.cc) first, then other crawler families' parsers (urllib, protego, ccbot, ...)."""

__all__ = [
    "PROFILES",
    "Finding",
    "Group",
    "RobotsTxt",
    "RunError",
    "Sitemap",
    "Verdict",
    "VerdictBatch",
    "check_many",
    "run",
    "version",
]

__version__ = version()

_Flag = Union[str, int, float, bool, None, Sequence[str], "os.PathLike[str]"]


def run(inputs: Iterable[Union[str, "os.PathLike[str]"]], out: Union[str, "os.PathLike[str]"], **flags: _Flag) -> int:
    """Runs ``robots-census run INPUTS... --out OUT`` with the CLI's flags.

    Flags are the long options of ``robots-census run --help`` with ``_`` for ``-``:
    ``run(["a.warc.gz"], "out", threads=2, tables=["agents"], overwrite=True)``. True
    passes a switch, False and None leave it out, a list is joined with commas.

    Returns the exit code: 0 (every input read completely), 1 (some inputs or records
    were skipped: see the errors table) or 75 (a transient failure: run again with
    ``resume=True``). Raises ValueError for arguments the CLI refuses and RunError
    (args: message, exit code) when the run ends with 2 or 130, with the CLI's message.
    """
    if isinstance(inputs, (str, bytes, os.PathLike)):
        raise TypeError("inputs must be a list of paths or URLs, not a single one")
    args = [os.fspath(i) for i in inputs]
    args += ["--out", os.fspath(out)]
    args += _flag_args(flags)
    return _native_run(args)


def _flag_args(flags: Mapping[str, _Flag]) -> list:
    args = []
    for name, value in flags.items():
        option = "--" + name.replace("_", "-")
        if value is True:
            args.append(option)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [option, ",".join(str(v) for v in value)]
        else:
            args += [option, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args
