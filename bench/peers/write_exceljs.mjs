// Writes the recipe's workbook with exceljs's streaming WorkbookWriter
// (rows committed as they come; inline strings, as annosheet writes them).
//
//   node write_exceljs.mjs RECIPE.jsonl OUT.xlsx

import fs from 'node:fs';
import readline from 'node:readline';
import ExcelJS from 'exceljs';

const [src, out] = process.argv.slice(2);

function argb(rgb) {
  return {argb: 'FF' + rgb};
}

function look(s) {
  const st = {
    font: {},
    alignment: {vertical: 'top', wrapText: !!s.wrap},
    protection: {locked: !s.unlocked},
  };
  if (s.bold) st.font.bold = true;
  if (s.italic) st.font.italic = true;
  if (s.size) st.font.size = s.size;
  if (s.color) st.font.color = argb(s.color);
  if (s.fill) st.fill = {type: 'pattern', pattern: 'solid', fgColor: argb(s.fill)};
  if (s.text) st.numFmt = '@';
  return st;
}

function clip(s, n) {
  return s && s.length > n ? s.slice(0, n) : s;
}

function validation(v) {
  const dv = {allowBlank: true};
  if (v.kind === 'checkbox' || v.kind === 'list') {
    dv.type = 'list';
    dv.formulae = [v.source ? v.source : '"' + v.values.join(',') + '"'];
  } else if (v.kind === 'whole') {
    Object.assign(dv, {type: 'whole', operator: 'between', formulae: [v.min, v.max]});
  } else {
    dv.type = 'any';
  }
  if (v.prompt_title || v.prompt) {
    Object.assign(dv, {showInputMessage: true, promptTitle: clip(v.prompt_title, 32), prompt: clip(v.prompt, 255)});
  }
  if (v.kind !== 'any') {
    Object.assign(dv, {
      showErrorMessage: true,
      errorStyle: v.strict ? 'error' : 'warning',
      errorTitle: clip(v.error_title, 32),
      error: clip(v.error, 255),
    });
  }
  return dv;
}

function colName(i) {
  let s = '';
  for (i += 1; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

const lines = readline.createInterface({input: fs.createReadStream(src), crlfDelay: Infinity});
const wb = new ExcelJS.stream.xlsx.WorkbookWriter({filename: out, useStyles: true, useSharedStrings: false});
let layout, looks;
const sheets = [];
const notes = [];
let last = -1;
let r = 0;

for await (const line of lines) {
  if (!layout) {
    layout = JSON.parse(line);
    looks = layout.styles.map(look);
    for (const sh of layout.sheets) {
      const opts = {state: sh.visibility, views: []};
      if (sh.freeze_rows || sh.freeze_cols) {
        opts.views.push({state: 'frozen', xSplit: sh.freeze_cols, ySplit: sh.freeze_rows});
      }
      if (sh.fit_width) {
        opts.pageSetup = {orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0};
      }
      const ws = wb.addWorksheet(sh.name, opts);
      ws.columns = sh.columns.map(c => ({width: c.width, hidden: !!c.hidden, style: looks[c.style]}));
      if (sh.protect) {
        const p = sh.protect;
        await ws.protect('', {
          formatColumns: p.format_columns, formatRows: p.format_rows, insertRows: p.insert_rows,
          sort: p.sort, autoFilter: p.auto_filter,
        });
      }
      if (sh.auto_filter) ws.autoFilter = `A1:${colName(sh.width - 1)}${sh.rows}`;
      for (const v of sh.validations) ws.dataValidations.add(v.range, validation(v));
      for (const c of sh.conditional_formats) {
        ws.addConditionalFormatting({
          ref: c.range,
          rules: [{type: 'expression', formulae: [c.formula], style: {fill: {type: 'pattern', pattern: 'solid', bgColor: argb(c.fill)}}}],
        });
      }
      for (const m of sh.merges) ws.mergeCells(m.range);
      sheets.push(ws);
      notes.push(new Map(sh.notes.map(n => [n.cell, n.text])));
    }
    wb.views = [{activeTab: layout.active}];
    continue;
  }
  const row = JSON.parse(line);
  if (row.s !== last) {
    if (last >= 0) sheets[last].commit();
    last = row.s;
    r = 0;
  }
  r++;
  const xr = sheets[row.s].getRow(r);
  if (row.h) xr.height = row.h;
  row.c.forEach(([v, st], c) => {
    if (v === null && !st) return;
    const cell = xr.getCell(c + 1);
    if (v !== null && typeof v === 'object') {
      cell.value = 'f' in v ? {formula: v.f} : {text: v.text, hyperlink: '#' + v.link};
    } else if (v !== null) {
      cell.value = v;
    }
    if (st) cell.style = looks[st];
    const note = notes[row.s].get(colName(c) + r);
    if (note !== undefined) cell.note = note;
  });
  xr.commit();
}
sheets[last].commit();
await wb.commit();
