"""Parse a report written by `robots-census report` with html5lib and print it as JSON.

Usage: python tests/report/parse_report.py REPORT.html

Prints one JSON object: "errors" (every parse error html5lib reports, as text: the
test wants none), "tables" (per table id: its data-query and its body rows, each with
its data-key and cells: data-col, the cell's own data-key, data-derived, and the
visible text), "charts" (ids of the <svg class="chart"> elements), "scripts" and
"external" (script elements and src/href attributes pointing anywhere: the page must
have none).
"""

import json
import sys

import html5lib

NS = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"


def text(el):
    return "".join(el.itertext()).strip()


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    parser = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), strict=False)
    doc = parser.parse(data, transport_encoding="utf-8")
    errors = [f"line {pos[0]} col {pos[1]}: {code} {args}" for pos, code, args in parser.errors]
    tables = {}
    for table in doc.iter(NS + "table"):
        rows = []
        for tbody in table.iter(NS + "tbody"):
            for tr in tbody.iter(NS + "tr"):
                cells = []
                for cell in tr:
                    if cell.tag not in (NS + "td", NS + "th"):
                        continue
                    cells.append({
                        "col": cell.get("data-col"),
                        "key": json.loads(cell.get("data-key")) if cell.get("data-key") else None,
                        "derived": cell.get("data-derived"),
                        "text": text(cell),
                    })
                rows.append({"key": json.loads(tr.get("data-key") or "{}"), "cells": cells})
        tables[table.get("id")] = {"query": table.get("data-query"), "rows": rows,
                                   "caption": text(table.find(NS + "caption"))
                                   if table.find(NS + "caption") is not None else None,
                                   "th_scopes": [th.get("scope") for th in table.iter(NS + "th")]}
    charts = [svg.get("id") for svg in doc.iter(SVG + "svg") if "chart" in (svg.get("class") or "").split()]
    scripts = len(list(doc.iter(NS + "script"))) + len(list(doc.iter(SVG + "script")))
    external = [el.get(a) for el in doc.iter() for a in ("src", "href") if el.get(a)]
    print(json.dumps({"errors": errors, "tables": tables, "charts": charts,
                      "scripts": scripts, "external": external}))


if __name__ == "__main__":
    main()
