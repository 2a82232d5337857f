"""Write src/report/purposes.tsv: the purpose group of every crawler token the report
knows, which orders and colours the agents of its charts.

Sources (both in the repository's reach, so the file is made, not typed):
- ../shared/agents/ai.robots.txt/robots.json (ai.robots.txt, MIT License): every AI
  crawler with its "function". A function that speaks of search, assistants, agents,
  answers or prompts (a crawler fetching for a user's question) is "AI search and
  assistants"; every other (scraping, training, datasets, data sold) is "AI training".
- src/verdicts/default_agents.txt: its "Search crawlers" section is "Search engines".
- The SEO tools' crawlers named below (their operators' documented tokens).
Anything else is "Other" (decided by the report, not listed here).

The third column says whether the crawler's operator says it honours robots.txt: yes, no
or unclear, from robots.json's "respect" (a leading Yes or No, else unclear). The search
engines' crawlers and the SEO tools' are "yes" (their operators document it). Google's
user-triggered fetchers, which Google's crawler pages say "generally ignore robots.txt
rules" (developers.google.com/crawling, user-triggered fetchers), are "no" whatever
robots.json says.

Usage: python scripts/agent_purposes.py SHARED_DIR > src/report/purposes.tsv
(tests/it/report_layout.rs checks that the committed file is this script's output).
"""

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ASSISTANT = re.compile(r"search|assistant|agent|answer|prompt|user quer", re.IGNORECASE)
SEO = ["AhrefsBot", "AhrefsSiteAudit", "SemrushBot", "SemrushBot-SA", "MJ12bot", "DotBot",
       "rogerbot", "BLEXBot", "Screaming Frog SEO Spider", "SEOkicks", "serpstatbot",
       "DataForSeoBot", "Barkrowler", "SiteAuditBot"]
GOOGLE_USER_TRIGGERED = ["Google-NotebookLM", "Google-CWS", "Google-Read-Aloud",
                         "Google-Site-Verification", "FeedFetcher-Google",
                         "Google-Pinpoint", "Google Favicon"]
RESPECT = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def respects(facts):
    """yes, no or unclear: robots.json's "respect" field, read by its first word."""
    found = RESPECT.match(facts.get("respect") or "")
    return found.group(1).lower() if found else "unclear"


def main():
    shared = Path(sys.argv[1])
    agents = json.loads((shared / "agents/ai.robots.txt/robots.json").read_text())
    rows = {}
    section = None
    for line in (REPO / "src/verdicts/default_agents.txt").read_text().splitlines():
        if line.startswith("#"):
            if "Search crawlers" in line:
                section = "Search engines"
            elif line.strip("# ") and section == "Search engines" and "AI" in line:
                section = None
            continue
        token = line.split("#")[0].strip()
        if token and section:
            rows[token] = (section, "yes")
    for token, facts in agents.items():
        function = facts.get("function") or ""
        purpose = "AI search and assistants" if ASSISTANT.search(function) else "AI training"
        respect = "no" if token in GOOGLE_USER_TRIGGERED else respects(facts)
        rows.setdefault(token, (purpose, respect))
    for token in SEO:
        rows.setdefault(token, ("SEO and marketing", "yes"))
    print("# token\tpurpose\trespects robots.txt -- written by scripts/agent_purposes.py;"
          " do not edit")
    for token in sorted(rows, key=str.lower):
        purpose, respect = rows[token]
        print(f"{token}\t{purpose}\t{respect}")


if __name__ == "__main__":
    main()
