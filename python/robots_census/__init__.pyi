"""Types of the robots_census module (checked by mypy in `make test`)."""

import os
from typing import Iterable, List, Optional, Sequence, Tuple, Union

_Bytes = Union[bytes, bytearray, str]
_Flag = Union[str, int, float, bool, None, Sequence[str], "os.PathLike[str]"]

__version__: str
PROFILES: Tuple[str, ...]

class Verdict:
    """One answer and the rule that decided it: the fields of `robots-census check --json`."""

    @property
    def agent(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def allowed(self) -> bool: ...
    @property
    def line(self) -> int:
        """The deciding rule's line; 0 when no rule decided."""
    @property
    def pattern(self) -> Optional[str]: ...
    @property
    def directive(self) -> Optional[str]:
        """"allow" or "disallow"; None when no rule decided."""
    @property
    def scope(self) -> str:
        """"named", "star" or "none"; under a profile also "fallback"."""
    @property
    def profile(self) -> str:
        """"google" (robots.cc) or the interpretation profile that answered."""

class Group:
    @property
    def first_line(self) -> int: ...
    @property
    def last_line(self) -> int: ...
    @property
    def user_agents(self) -> List[str]: ...
    @property
    def product_tokens(self) -> List[str]: ...
    @property
    def has_star(self) -> bool: ...
    @property
    def n_allow(self) -> int: ...
    @property
    def n_disallow(self) -> int: ...
    @property
    def crawl_delay(self) -> Optional[float]: ...

class Sitemap:
    @property
    def line(self) -> int: ...
    @property
    def url(self) -> str: ...

class Finding:
    """A lint finding: the fields of `robots-census lint --json`."""

    @property
    def line(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def excerpt(self) -> str: ...

class Signal:
    """An AI-use signal line or comment: the `signals` table's columns for one file."""

    @property
    def line(self) -> int: ...
    @property
    def kind(self) -> str:
        """content-usage, content-signal, license, llm-policy, disallow-ai-training,
        tdm-comment or cloudflare-managed."""
    @property
    def agents(self) -> List[str]:
        """The user-agent values of the line's group; empty before any group."""
    @property
    def path(self) -> Optional[str]: ...
    @property
    def value(self) -> str: ...
    @property
    def valid(self) -> bool: ...
    @property
    def problem(self) -> Optional[str]: ...
    @property
    def train_ai(self) -> Optional[str]:
        """content-usage: "y", "n" or None (unknown)."""
    @property
    def search(self) -> Optional[str]: ...
    @property
    def labels(self) -> Optional[str]:
        """content-usage: "current", "legacy" or "mixed"."""
    @property
    def ai_train(self) -> Optional[str]:
        """content-signal: "yes", "no" or None."""
    @property
    def ai_input(self) -> Optional[str]: ...
    @property
    def search_signal(self) -> Optional[str]: ...
    @property
    def use(self) -> Optional[str]:
        """content-signal: "immediate", "reference" or "full"."""
    @property
    def license_url(self) -> Optional[str]: ...
    @property
    def license_same_host(self) -> Optional[bool]: ...
    @property
    def cloudflare_managed(self) -> bool: ...

class RobotsTxt:
    """A robots.txt parsed once, exactly as Google's robots.cc reads it."""

    def __init__(self, body: _Bytes) -> None: ...
    def allowed(self, agent: _Bytes, url: _Bytes, profile: Optional[str] = None) -> bool: ...
    def explain(self, agent: _Bytes, url: _Bytes, profile: Optional[str] = None) -> Verdict: ...
    def readings(
        self, agents: Sequence[str], urls: Sequence[str], profiles: Optional[Sequence[str]] = None
    ) -> List[Verdict]: ...
    def crawl_delay(self, agent: _Bytes) -> Optional[float]: ...
    def lint(self) -> List[Finding]: ...
    def signals(self, url: Optional[str] = None) -> List[Signal]:
        """The AI-use signals in file order; `url` (the robots.txt URL) resolves License values."""
    @property
    def groups(self) -> List[Group]: ...
    @property
    def sitemaps(self) -> List[Sitemap]: ...
    @property
    def parsed_size(self) -> int: ...

class VerdictBatch:
    """Arrow batch of answers: pyarrow.table(batch), polars.DataFrame(batch), DuckDB."""

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __len__(self) -> int: ...

class RunError(RuntimeError):
    args: Tuple[str, int]

def check_many(
    bodies: Sequence[_Bytes], agents: Sequence[_Bytes], urls: Sequence[_Bytes]
) -> VerdictBatch: ...
def run(
    inputs: Iterable[Union[str, "os.PathLike[str]"]],
    out: Union[str, "os.PathLike[str]"],
    **flags: _Flag,
) -> int: ...
def version() -> str: ...
def profiles() -> List[str]: ...
