// Reads a filled workbook with exceljs's streaming WorkbookReader and
// writes each unit's answers, as annosheet pull extracts them, one JSON
// line per row of units.
//
//   node read_exceljs.mjs BOOK.xlsx COLUMNS.json OUT.jsonl
//
// COLUMNS.json (from `kit data`) says which sheet, and which 0-based
// column holds the unit's ID and each answer.

import fs from 'node:fs';
import ExcelJS from 'exceljs';

const [book, columns, out] = process.argv.slice(2);
const cols = JSON.parse(fs.readFileSync(columns, 'utf8'));
const answers = Object.entries(cols.answers).sort();

function text(v) {
  if (v === null || v === undefined) return '';
  if (v === true) return 'TRUE';
  if (v === false) return 'FALSE';
  if (typeof v === 'object' && 'richText' in v) return v.richText.map(r => r.text).join('');
  return String(v);
}

const w = fs.createWriteStream(out);
const reader = new ExcelJS.stream.xlsx.WorkbookReader(book, {
  sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'ignore', worksheets: 'emit', entries: 'ignore',
});
for await (const ws of reader) {
  if (ws.name !== cols.sheet) {
    for await (const _ of ws) {} // eslint-disable-line no-unused-vars
    continue;
  }
  for await (const row of ws) {
    if (row.number < 2) continue;
    // row.values is 1-based: values[1] is column A.
    const v = row.values;
    const unit = v[cols.unit + 1];
    if (unit === null || unit === undefined) continue;
    const values = {};
    for (const [k, i] of answers) values[k] = text(v[i + 1]);
    if (!w.write(JSON.stringify({row: row.number, unit: text(unit), values}) + '\n')) {
      await new Promise(resolve => w.once('drain', resolve));
    }
  }
}
await new Promise((resolve, reject) => w.end(err => (err ? reject(err) : resolve())));
