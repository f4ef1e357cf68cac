"""Writes the recipe's workbook with openpyxl in write-only mode (rows
streamed to a temporary file; strings shared, as openpyxl always writes
them).

    /usr/bin/python3 write_openpyxl.py RECIPE.jsonl OUT.xlsx"""

import sys

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.comments import Comment
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill, Protection
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.hyperlink import Hyperlink

import recipe


class Look:
    """The style objects of one recipe style, made once and shared."""

    def __init__(self, s):
        self.font = Font(bold=s.get("bold", False), italic=s.get("italic", False),
                         size=s.get("size") or None, color=s.get("color"))
        self.fill = PatternFill("solid", fgColor=s["fill"]) if s.get("fill") else None
        self.alignment = Alignment(vertical="top", wrap_text=s.get("wrap", False))
        self.protection = Protection(locked=not s.get("unlocked"))
        self.number_format = "@" if s.get("text") else None

    def apply(self, obj):
        obj.font = self.font
        if self.fill is not None:
            obj.fill = self.fill
        obj.alignment = self.alignment
        obj.protection = self.protection
        if self.number_format:
            obj.number_format = self.number_format


def validation(v):
    kind = v["kind"]
    dv = DataValidation(allow_blank=True, sqref=v["range"])
    if kind in ("checkbox", "list"):
        dv.type = "list"
        dv.formula1 = "=" + v["source"] if v.get("source") else '"' + ",".join(v["values"]) + '"'
    elif kind == "whole":
        dv.type, dv.operator = "whole", "between"
        dv.formula1, dv.formula2 = str(v["min"]), str(v["max"])
    if v.get("prompt_title") or v.get("prompt"):
        dv.showInputMessage = True
        dv.promptTitle = recipe.clip(v.get("prompt_title"), 32)
        dv.prompt = recipe.clip(v.get("prompt"), 255)
    if kind != "any":
        dv.showErrorMessage = True
        dv.errorStyle = "stop" if v["strict"] else "warning"
        dv.errorTitle = recipe.clip(v.get("error_title"), 32)
        dv.error = recipe.clip(v.get("error"), 255)
    return dv


def main(src, out):
    layout, rows = recipe.read(src)
    wb = Workbook(write_only=True)
    looks = [Look(s) for s in layout["styles"]]
    sheets, notes = [], []
    for sh in layout["sheets"]:
        ws = wb.create_sheet(sh["name"])
        for i, c in enumerate(sh["columns"]):
            d = ws.column_dimensions[recipe.col_name(i)]
            d.width = c["width"]
            d.hidden = bool(c.get("hidden"))
            looks[c["style"]].apply(d)
        if sh["freeze_rows"] or sh["freeze_cols"]:
            ws.freeze_panes = recipe.col_name(sh["freeze_cols"]) + str(sh["freeze_rows"] + 1)
        if sh["protect"] is not None:
            p, pr = sh["protect"], ws.protection
            pr.sheet = True
            pr.formatColumns = not p["format_columns"]
            pr.formatRows = not p["format_rows"]
            pr.insertRows = not p["insert_rows"]
            pr.sort = not p["sort"]
            pr.autoFilter = not p["auto_filter"]
            pr.selectLockedCells = pr.selectUnlockedCells = False
        if sh["auto_filter"]:
            ws.auto_filter.ref = "A1:%s%d" % (recipe.col_name(sh["width"] - 1), sh["rows"])
        for v in sh["validations"]:
            ws.data_validations.append(validation(v))  # add_data_validation is not in write-only mode
        for c in sh["conditional_formats"]:
            ws.conditional_formatting.add(c["range"], FormulaRule(
                formula=[c["formula"]], fill=PatternFill("solid", bgColor=c["fill"], fgColor=c["fill"])))
        for m in sh["merges"]:
            ws.merged_cells.add(m["range"])
        if sh["fit_width"]:
            ws.page_setup.orientation = "landscape"
            ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
            ws.sheet_properties.pageSetUpPr.fitToPage = True
        ws.sheet_state = sh["visibility"]
        sheets.append(ws)
        notes.append({recipe.cell_index(n["cell"]): n["text"] for n in sh["notes"]})
    wb.active = layout["active"]

    last, r = -1, 0
    for row in rows:
        s = row["s"]
        if s != last:
            last, r = s, 0
        ws = sheets[s]
        if row["h"]:
            ws.row_dimensions[r + 1].height = row["h"]
        cells = []
        for c, (v, st) in enumerate(row["c"]):
            if isinstance(v, dict):
                if "f" in v:
                    cell = WriteOnlyCell(ws, "=" + v["f"])
                else:
                    cell = WriteOnlyCell(ws, v["text"])
                    cell.hyperlink = Hyperlink(ref=recipe.col_name(c) + str(r + 1), location=v["link"])
            else:
                cell = WriteOnlyCell(ws, v)
                if isinstance(v, str) and v.startswith("="):
                    cell.data_type = "s"  # text, never a formula
            if st:
                looks[st].apply(cell)
            note = notes[s].get((r, c))
            if note is not None:
                cell.comment = Comment(note, "annosheet")
            cells.append(cell)
        ws.append(cells)
        # Heights are kept until the sheet is written: forget them once used.
        ws.row_dimensions.pop(r + 1, None)
        r += 1
    wb.save(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
