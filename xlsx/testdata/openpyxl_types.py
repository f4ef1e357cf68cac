"""Makes workbooks with a cell of each kind the reader types, and reads
workbooks back, with openpyxl, an independent XLSX writer and reader.

    openpyxl_types.py make DIR      writes DIR/types.xlsx and DIR/types1904.xlsx
    openpyxl_types.py resave IN OUT loads IN and saves it as OUT
    openpyxl_types.py dump PATH     prints every cell of every sheet as JSON:
                                    {"Sheet!A1": [data_type, python type, text]}

openpyxl 3.0 (Debian's) writes no rich text and no shared strings: the Go
test adds those to types.xlsx by hand, on the cells marked RICH_INLINE and
RICH_SHARED, and checks them against dump.
"""
import datetime
import json
import sys

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904


def make(out):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Types"
    ws["A1"] = True
    ws["B1"] = False
    # A built-in format (mm-dd-yy is built-in 14) and custom ones.
    ws["A2"] = datetime.date(2024, 3, 14)
    ws["A2"].number_format = "mm-dd-yy"
    ws["A3"] = datetime.datetime(2024, 3, 14, 15, 30)
    ws["A3"].number_format = "dddd d mmmm yyyy hh:mm AM/PM"
    ws["A4"] = "=1+1"  # openpyxl computes no formula: no saved value
    ws["A5"] = "#N/A"  # an error value
    ws["A6"] = "plain"
    ws["A7"] = 4.5
    ws["A8"] = datetime.time(15, 30)  # built-in 21, h:mm:ss
    ws["A9"] = datetime.datetime(2024, 3, 14, 15, 30)  # yyyy-mm-dd h:mm:ss
    ws["A10"] = "RICH_INLINE"
    ws["A11"] = "RICH_SHARED"
    ws["A12"] = 4
    wb.save(out + "/types.xlsx")

    wb = openpyxl.Workbook()
    wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "Types"
    ws["A1"] = datetime.date(2024, 3, 14)
    ws["A1"].number_format = "yyyy-mm-dd"
    ws["A2"] = datetime.datetime(1904, 1, 2, 6, 0)
    ws["A2"].number_format = "d mmm yyyy h:mm"
    wb.save(out + "/types1904.xlsx")


def dump(path):
    wb = openpyxl.load_workbook(path)
    out = {}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is None:
                    continue
                v = c.value
                if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
                    text = v.isoformat()
                else:
                    text = str(v)
                out[ws.title + "!" + c.coordinate] = [c.data_type, type(v).__name__, text]
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "resave":
        openpyxl.load_workbook(sys.argv[2]).save(sys.argv[3])
    else:
        dump(sys.argv[2])
