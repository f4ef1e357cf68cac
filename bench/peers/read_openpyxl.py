"""Reads a filled workbook with openpyxl in read-only mode (rows streamed
from the zip) and writes each unit's answers, as annosheet pull extracts
them, one JSON line per row of units.

    /usr/bin/python3 read_openpyxl.py BOOK.xlsx COLUMNS.json OUT.jsonl

COLUMNS.json (from `kit data`) says which sheet, and which 0-based column
holds the unit's ID and each answer."""

import json
import sys

from openpyxl import load_workbook


def text(v):
    if v is None:
        return ""
    if v is True:
        return "TRUE"
    if v is False:
        return "FALSE"
    return str(v)


def main(book, columns, out):
    with open(columns, encoding="utf-8") as f:
        cols = json.load(f)
    answers = sorted(cols["answers"].items())
    unit = cols["unit"]
    wb = load_workbook(book, read_only=True)
    ws = wb[cols["sheet"]]
    with open(out, "w", encoding="utf-8") as w:
        for n, row in enumerate(ws.iter_rows(min_row=2, values_only=True), 2):
            get = lambda i: row[i] if i < len(row) else None
            if get(unit) is None:
                continue
            w.write(json.dumps({
                "row": n, "unit": text(get(unit)),
                "values": {k: text(get(i)) for k, i in answers},
            }) + "\n")
    wb.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
