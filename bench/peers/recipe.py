"""Reading the recipe that `kit recipe` writes: the workbook annosheet
generated, told as JSON Lines (see kit/recipe.go). The first line is the
layout, each further line a row: {"s": sheet, "h": height, "c": [[value,
style], ...]}."""

import json
import re


def read(path):
    """Returns the layout and an iterator over the rows."""
    f = open(path, encoding="utf-8")
    layout = json.loads(f.readline())

    def rows():
        with f:
            for line in f:
                yield json.loads(line)

    return layout, rows()


def col_name(i):
    """The letters of the 0-based column i."""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


_REF = re.compile(r"^([A-Z]+)(\d+)$")


def cell_index(ref):
    """(row, col), both 0-based, of an A1 reference."""
    m = _REF.match(ref)
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    return int(m.group(2)) - 1, col - 1


def range_index(ref):
    """(first_row, first_col, last_row, last_col), 0-based, of A1 or A1:B2."""
    a, _, b = ref.partition(":")
    r0, c0 = cell_index(a)
    r1, c1 = cell_index(b or a)
    return r0, c0, r1, c1


def clip(s, n):
    """s cut to n characters, as Excel's limits on validation texts want."""
    return s if s is None or len(s) <= n else s[:n]
