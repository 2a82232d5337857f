"""``robots_census.run``: the ``robots-census`` binary of this wheel, run as a subprocess.

The wheel installs the binary on PATH from its data/scripts, beside the module. It is
found as ruff's and uv's Python packages find theirs: next to the installed package
(``pip install --target``, or the prefix of a venv, ``--user`` or ``--prefix`` install),
then in the interpreter's scripts directories (sysconfig), then on PATH.
"""

from __future__ import annotations

import codecs
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from typing import IO, List, Mapping, Optional, Sequence, Union

_EXE = "robots-census" + (sysconfig.get_config_var("EXE") or "")

# How the binary ends a run it could not do: one line `robots-census: MESSAGE` on
# stderr (src/cli/commands.rs, `fail`), after any warnings and notes.
_PREFIX = "robots-census: "
_NOT_THE_ERROR = (_PREFIX + "warning: ", _PREFIX + "note: ")
# The end of stderr kept to find that message: it is the last thing the binary prints.
_TAIL_BYTES = 64 * 1024

Flag = Union[str, int, float, bool, None, Sequence[str], "os.PathLike[str]"]


class RunError(RuntimeError):
    """A run that ended with exit 2 (usage error, output not writable) or 130
    (interrupted), or a binary that died: args are (message, exit_code), the message as
    the CLI prints it."""


RunError.__module__ = "robots_census"


def _user_scheme() -> str:
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def _candidate_dirs() -> List[str]:
    """Where the binary of this wheel may be, likeliest first."""
    package = os.path.dirname(os.path.abspath(__file__))
    site = os.path.dirname(package)
    # `pip install --target DIR`: the package in DIR/robots_census, scripts in DIR/bin.
    dirs = [os.path.join(site, "bin")]
    # A prefix install (a venv, --user, --prefix, the system): the package in
    # PREFIX/lib/pythonX.Y/site-packages/robots_census, scripts in PREFIX/bin.
    lib_python, site_name = os.path.split(site)
    lib, python = os.path.split(lib_python)
    if site_name in ("site-packages", "dist-packages") and python.startswith("python"):
        dirs.append(os.path.join(os.path.dirname(lib), "bin"))
    # The running interpreter's scripts directories.
    dirs.append(sysconfig.get_path("scripts"))
    dirs.append(sysconfig.get_path("scripts", _user_scheme()))
    return dirs


def find_bin() -> str:
    """The path of the ``robots-census`` binary: the one this wheel installed, else the
    first on PATH. Raises FileNotFoundError naming the places looked in."""
    looked = []
    for directory in _candidate_dirs():
        if not directory or directory in looked:
            continue
        looked.append(directory)
        path = os.path.join(directory, _EXE)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    on_path = shutil.which(_EXE)
    if on_path:
        return on_path
    raise FileNotFoundError(
        f"the {_EXE} binary of the robots-census wheel is in none of {', '.join(looked)} "
        "nor on PATH: reinstall the wheel"
    )


def flag_args(flags: Mapping[str, Flag]) -> List[str]:
    """Keyword flags as long options: True a switch, False and None left out, a list
    joined with commas."""
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


class _Stderr:
    """The binary's stderr, passed on to ``sys.stderr`` as it comes (so that warnings
    and the summary show in a notebook too), its end kept to read the error from."""

    def __init__(self) -> None:
        self.tail = b""
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def add(self, chunk: bytes) -> None:
        self.tail = (self.tail + chunk)[-_TAIL_BYTES:]
        text = self.decoder.decode(chunk, final=not chunk)
        if text and sys.stderr is not None:
            sys.stderr.write(text)
            sys.stderr.flush()

    def drain(self, stream: IO[bytes]) -> None:
        while True:
            chunk = stream.read1(65536)  # type: ignore[attr-defined]
            self.add(chunk)
            if not chunk:
                return

    def message(self) -> Optional[str]:
        """The binary's last `robots-census: MESSAGE`, without the prefix."""
        lines = self.tail.decode("utf-8", "replace").splitlines()
        for i in range(len(lines) - 1, -1, -1):
            line = lines[i]
            if line.startswith(_PREFIX) and not line.startswith(_NOT_THE_ERROR):
                return "\n".join([line[len(_PREFIX) :]] + lines[i + 1 :]).rstrip()
        return None

    def usage_error(self) -> Optional[str]:
        """The command-line parser's refusal (`error: ...`, then the usage), printed
        before anything else."""
        text = self.tail.decode("utf-8", "replace")
        return text if text.startswith("error: ") else None


def run_cli(args: Sequence[str]) -> int:
    """Runs ``robots-census ARGS...`` and returns 0, 1, 2 (``--strict``, anything
    skipped) or 75. Raises ValueError for arguments the CLI's parser refuses and
    RunError for a run that ended with another code."""
    stderr = _Stderr()
    process = subprocess.Popen([find_bin(), *args], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    interrupted: Optional[KeyboardInterrupt] = None
    with process:
        try:
            stderr.drain(process.stderr)
        except KeyboardInterrupt as e:
            # The binary stops as on Ctrl-C: the tasks it finished are kept. It had
            # the signal too when it came from a terminal; not from a notebook.
            interrupted = e
            process.send_signal(signal.SIGINT)
            try:
                stderr.drain(process.stderr)
            except KeyboardInterrupt:
                process.kill()
                raise
        code = process.wait()
    if interrupted is not None:
        raise interrupted
    if code in (0, 1, 75):
        return code
    if code == 2:
        usage = stderr.usage_error()
        if usage is not None:
            raise ValueError(usage)
    message = stderr.message()
    if code == 2 and message is None:
        return code  # --strict: the run ended, something was skipped (see the summary)
    if code < 0:
        code = 128 - code
        message = message or f"robots-census was ended by signal {code - 128}"
    raise RunError(message or f"robots-census ended with exit code {code}", code)
