"""Parse an HTML page with html5lib's strict parser (any parse error fails) and report
what a test checks: the rows of each table by id, and any script, external resource
or non-inline style. Usage: check_html.py FILE -> JSON on stdout; exit 1 on a parse error.
"""

import json
import sys

import html5lib


def main():
    data = open(sys.argv[1], "rb").read()
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        doc = parser.parse(data)
    except html5lib.html5parser.ParseError as e:
        print(f"parse error: {e}", file=sys.stderr)
        sys.exit(1)
    tables = {}
    for table in doc.iter("table"):
        rows = []
        for tr in table.iter("tr"):
            cells = ["".join(td.itertext()) for td in tr if td.tag in ("td", "th")]
            rows.append(cells)
        tables[table.get("id")] = rows
    external = [el.get("src") or el.get("href") for el in doc.iter()
                if el.get("src") or (el.tag == "link" and el.get("href"))]
    scripts = sum(1 for _ in doc.iter("script"))
    json.dump({"tables": tables, "external": external, "scripts": scripts,
               "title": "".join(next(doc.iter("title")).itertext())}, sys.stdout)


if __name__ == "__main__":
    main()
