package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/parquet-go/parquet-go"

	"github.com/annosheet/annosheet/internal/csvsafe"
)

// WriteCSV writes the table as CSV (RFC 4180, UTF-8, a header row). Text
// that a spreadsheet would read as a formula gets a leading apostrophe
// (see package csvsafe), in the header too; numbers and booleans are
// written as such (true, false); an empty cell is an empty field.
func (tb *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		rec[i] = csvsafe.Text(c.Name)
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	for _, row := range tb.Rows {
		for i, v := range row {
			switch v := v.(type) {
			case nil:
				rec[i] = ""
			case string:
				rec[i] = csvsafe.Text(v)
			case int64:
				rec[i] = strconv.FormatInt(v, 10)
			case bool:
				rec[i] = strconv.FormatBool(v)
			default:
				return fmt.Errorf("column %s: a cell of type %T", tb.Columns[i].Name, v)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// columns is the root of a table's Parquet schema: its columns in the
// table's order (parquet.Group would sort them by name).
type columns struct {
	parquet.Group
	fields []parquet.Field
}

func (c columns) Fields() []parquet.Field { return c.fields }

// parquetSchema is the Parquet schema of the table: a column per table
// column, optional (an empty cell is null), typed as its kind: a UTF-8
// string, a 64-bit integer or a boolean.
func (tb *Table) parquetSchema() *parquet.Schema {
	root := columns{Group: parquet.Group{}}
	for _, c := range tb.Columns {
		var leaf parquet.Node
		switch c.Kind {
		case KindInt:
			leaf = parquet.Int(64)
		case KindBool:
			leaf = parquet.Leaf(parquet.BooleanType)
		default:
			leaf = parquet.String()
		}
		node := parquet.Optional(leaf)
		root.Group[c.Name] = node
		// A field of a one-column group carries the column's name.
		root.fields = append(root.fields, parquet.Group{c.Name: node}.Fields()[0])
	}
	return parquet.NewSchema("annosheet", root)
}

// WriteParquet writes the table as a Parquet file: typed columns (see
// parquetSchema), in the table's order, every text as it is.
func (tb *Table) WriteParquet(w io.Writer) error {
	schema := tb.parquetSchema()
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd))
	b := parquet.NewRowBuilder(schema)
	rows := make([]parquet.Row, 0, 1024)
	flush := func() error {
		if _, err := pw.WriteRows(rows); err != nil {
			return err
		}
		rows = rows[:0]
		return nil
	}
	for _, row := range tb.Rows {
		b.Reset()
		for i, v := range row {
			switch v := v.(type) {
			case nil:
			case string:
				b.Add(i, parquet.ByteArrayValue([]byte(v)))
			case int64:
				b.Add(i, parquet.Int64Value(v))
			case bool:
				b.Add(i, parquet.BooleanValue(v))
			default:
				return fmt.Errorf("column %s: a cell of type %T", tb.Columns[i].Name, v)
			}
		}
		rows = append(rows, b.Row())
		if len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}
