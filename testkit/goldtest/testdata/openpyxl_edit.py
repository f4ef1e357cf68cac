"""Edits a workbook with openpyxl the way annotators change sheets, from a
list of operations given as JSON, and saves it. Used by the Go tests to
check that pull survives real edits made by a real spreadsheet library.

usage: openpyxl_edit.py WORKBOOK OPS.json
ops: {"op": "set", "cell": "F2", "value": ..., "type": "str|int|float|bool|formula"}
     {"op": "sort", "key": "A", "reverse": true}          # data rows, by a column
     {"op": "insert_col", "before": "F", "header": "My notes"}
     {"op": "rename", "cell": "F1", "value": "New header"}
     {"op": "delete_row", "row": 3}
     {"op": "copy_row", "from": 2}                       # appended at the end
     {"op": "insert_row", "before": 5}
"""
import json
import sys

import openpyxl
from openpyxl.utils import column_index_from_string


def main(path, ops_path):
    with open(ops_path) as f:
        ops = json.load(f)
    wb = openpyxl.load_workbook(path)
    ws = wb["Annotate"]
    for op in ops:
        kind = op["op"]
        if kind == "set":
            v = op["value"]
            t = op.get("type", "str")
            if t == "int":
                v = int(v)
            elif t == "float":
                v = float(v)
            elif t == "bool":
                v = bool(v)
            ws[op["cell"]] = v
            if t == "str" and isinstance(v, str) and v.startswith("="):
                ws[op["cell"]].data_type = "s"
        elif kind == "sort":
            col = column_index_from_string(op["key"])
            rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2, max_row=ws.max_row)]
            rows.sort(key=lambda r: str(r[col - 1] or ""), reverse=op.get("reverse", False))
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    # cell(..., value=None) leaves a cell as it was:
                    # assigning clears the empty ones too.
                    ws.cell(row=i + 2, column=j + 1).value = v
        elif kind == "insert_col":
            idx = column_index_from_string(op["before"])
            ws.insert_cols(idx)
            ws.cell(row=1, column=idx, value=op["header"])
        elif kind == "rename":
            ws[op["cell"]] = op["value"]
        elif kind == "delete_row":
            ws.delete_rows(op["row"])
        elif kind == "copy_row":
            src = op["from"]
            dst = ws.max_row + 1
            for j in range(1, ws.max_column + 1):
                ws.cell(row=dst, column=j, value=ws.cell(row=src, column=j).value)
        elif kind == "insert_row":
            ws.insert_rows(op["before"])
        else:
            raise SystemExit("unknown op " + kind)
    wb.save(path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
