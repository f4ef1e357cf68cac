"""Writes the recipe's workbook with XlsxWriter in constant_memory mode
(rows streamed to disk, inline strings, as annosheet writes them).

    /usr/bin/python3 write_xlsxwriter.py RECIPE.jsonl OUT.xlsx

XlsxWriter 3.0 cannot make a sheet very hidden: the metadata sheet is
hidden."""

import sys

import xlsxwriter

import recipe


def fmt_props(s):
    p = {"valign": "top"}
    if s.get("bold"):
        p["bold"] = True
    if s.get("italic"):
        p["italic"] = True
    if s.get("size"):
        p["font_size"] = s["size"]
    if s.get("color"):
        p["font_color"] = "#" + s["color"]
    if s.get("fill"):
        p["bg_color"] = "#" + s["fill"]
        p["pattern"] = 1
    if s.get("wrap"):
        p["text_wrap"] = True
    p["locked"] = not s.get("unlocked")
    if s.get("text"):
        p["num_format"] = "@"
    return p


def validation(v):
    o = {"ignore_blank": True}
    kind = v["kind"]
    if kind in ("checkbox", "list"):
        o["validate"] = "list"
        o["source"] = "=" + v["source"] if v.get("source") else v["values"]
    elif kind == "whole":
        o.update(validate="integer", criteria="between", minimum=v["min"], maximum=v["max"])
    else:
        o["validate"] = "any"
    if v.get("prompt_title") or v.get("prompt"):
        o["input_title"] = recipe.clip(v.get("prompt_title", ""), 32)
        o["input_message"] = recipe.clip(v.get("prompt", ""), 255)
    if kind != "any":
        o["error_type"] = "stop" if v["strict"] else "warning"
        if v.get("error_title"):
            o["error_title"] = recipe.clip(v["error_title"], 32)
        if v.get("error"):
            o["error_message"] = recipe.clip(v["error"], 255)
    return o


def main(src, out):
    layout, rows = recipe.read(src)
    wb = xlsxwriter.Workbook(out, {"constant_memory": True})
    formats = [wb.add_format(fmt_props(s)) for s in layout["styles"]]
    sheets, merges = [], []
    for sh in layout["sheets"]:
        ws = wb.add_worksheet(sh["name"])
        for i, c in enumerate(sh["columns"]):
            ws.set_column(i, i, c["width"], formats[c["style"]], {"hidden": bool(c.get("hidden"))})
        if sh["freeze_rows"] or sh["freeze_cols"]:
            ws.freeze_panes(sh["freeze_rows"], sh["freeze_cols"])
        if sh["protect"] is not None:
            p = sh["protect"]
            ws.protect("", {
                "format_columns": p["format_columns"], "format_rows": p["format_rows"],
                "insert_rows": p["insert_rows"], "sort": p["sort"], "autofilter": p["auto_filter"],
                "select_locked_cells": True, "select_unlocked_cells": True,
            })
        if sh["auto_filter"]:
            ws.autofilter(0, 0, sh["rows"] - 1, sh["width"] - 1)
        for v in sh["validations"]:
            ws.data_validation(*recipe.range_index(v["range"]), validation(v))
        for c in sh["conditional_formats"]:
            ws.conditional_format(*recipe.range_index(c["range"]), {
                "type": "formula", "criteria": "=" + c["formula"],
                "format": wb.add_format({"bg_color": "#" + c["fill"]}),
            })
        for n in sh["notes"]:
            r, c = recipe.cell_index(n["cell"])
            ws.write_comment(r, c, n["text"])
        if sh["fit_width"]:
            ws.set_landscape()
            ws.fit_to_pages(1, 0)
        if sh["visibility"] != "visible":
            ws.hide()
        sheets.append(ws)
        # A merged range is written with its first cell's value.
        merges.append({recipe.cell_index(m["range"].split(":")[0]): recipe.range_index(m["range"]) for m in sh["merges"]})
    sheets[layout["active"]].activate()

    last, r = -1, 0
    for row in rows:
        s = row["s"]
        if s != last:
            last, r = s, 0
        ws, f = sheets[s], None
        if row["h"]:
            ws.set_row(r, row["h"])
        for c, (v, st) in enumerate(row["c"]):
            f = formats[st]
            m = merges[s].get((r, c))
            if m is not None:
                ws.merge_range(*m, "" if v is None else v, f)
            elif v is None:
                if st:
                    ws.write_blank(r, c, None, f)
            elif isinstance(v, bool):
                ws.write_boolean(r, c, v, f)
            elif isinstance(v, (int, float)):
                ws.write_number(r, c, v, f)
            elif isinstance(v, str):
                ws.write_string(r, c, v, f)
            elif "f" in v:
                ws.write_formula(r, c, "=" + v["f"], f, "")
            else:
                ws.write_url(r, c, "internal:" + v["link"], f, v["text"])
        r += 1
    wb.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
