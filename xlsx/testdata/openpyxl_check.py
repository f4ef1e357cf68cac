"""Reads a workbook with openpyxl, an independent XLSX reader, and prints
what annosheet promises about it as JSON: sheets and their states, panes,
protection, data validations, and per cell of the Annotate sheet its value,
lock and fill. The Go test compares this with what it wrote."""
import json
import sys

import openpyxl


def fill(cell):
    f = cell.fill
    if f is None or f.fill_type != "solid":
        return ""
    rgb = f.fgColor.rgb if f.fgColor is not None else ""
    return rgb[-6:] if isinstance(rgb, str) else ""


def main(path):
    wb = openpyxl.load_workbook(path)
    out = {"sheets": [], "active": wb.active.title}
    for ws in wb.worksheets:
        s = {
            "name": ws.title,
            "state": ws.sheet_state,
            "freeze": ws.freeze_panes,
            "protected": bool(ws.protection.sheet),
            "sort_locked": bool(ws.protection.sort),
            "autofilter_locked": bool(ws.protection.autoFilter),
            "insert_rows_locked": bool(ws.protection.insertRows),
            "autofilter": ws.auto_filter.ref,
            "max_row": ws.max_row,
            "max_column": ws.max_column,
            "validations": [],
            "cells": [],
        }
        for dv in ws.data_validations.dataValidation:
            s["validations"].append({
                "sqref": str(dv.sqref),
                "type": dv.type or "",
                "formula1": dv.formula1 or "",
                "formula2": dv.formula2 or "",
                "prompt": dv.prompt or "",
                "error_style": dv.errorStyle or "",
            })
        if ws.title == "Annotate":
            for row in ws.iter_rows():
                for c in row:
                    v = c.value
                    if isinstance(v, bool):
                        v = "bool:" + str(v)
                    elif v is not None and not isinstance(v, str):
                        v = "num:" + str(v)
                    s["cells"].append({
                        "ref": c.coordinate,
                        "value": v,
                        "type": c.data_type,
                        "locked": bool(c.protection.locked),
                        "fill": fill(c),
                    })
        out["sheets"].append(s)
    # The streaming writer must declare the dimension, or read-only mode
    # sees a single row.
    ro = openpyxl.load_workbook(path, read_only=True)
    out["read_only_rows"] = sum(1 for _ in ro["Annotate"].iter_rows())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
