// Reads a CSV or Parquet file with DuckDB and prints what it read as
// JSON: {"columns": [...], "types": [...], "rows": [[...], ...]}. CSV
// fields are read as text (all_varchar), an empty field as null;
// Parquet columns keep their types (BIGINT values are printed as
// strings, booleans as booleans).
//
//   node read.mjs csv|parquet FILE
import { DuckDBInstance } from '@duckdb/node-api';

const [format, file] = process.argv.slice(2);
const path = "'" + file.replaceAll("'", "''") + "'";
let from;
if (format === 'csv') {
  from = `read_csv(${path}, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"')`;
} else if (format === 'parquet') {
  from = `read_parquet(${path})`;
} else {
  console.error(`unknown format ${format}: give csv or parquet`);
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const reader = await connection.runAndReadAll(`select * from ${from}`);
process.stdout.write(JSON.stringify({
  columns: reader.columnNames(),
  types: reader.columnTypes().map((t) => t.toString()),
  rows: reader.getRowsJson(),
}));
