package input

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/suggest"
	"github.com/annosheet/annosheet/layout"
	"github.com/annosheet/annosheet/records"
)

// A Parquet file is read a row at a time: each row a record, each of the
// schema's top-level columns a field, its nested types (lists, structs,
// maps) as the JSON values they stand for. The values are those JSON
// would give:
//
//	Parquet                                    record (JSON)
//	BYTE_ARRAY as STRING, ENUM or JSON         a string; where the template reads a list or an
//	                                           object, the JSON the text holds (as in CSV; a
//	                                           BYTE_ARRAY without annotation too)
//	BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, BSON,    base64 text (standard, padded)
//	  GEOMETRY, GEOGRAPHY, INTERVAL
//	BOOLEAN                                    true or false
//	INT32, INT64, INT(n, signed or not)        a number (json.Number)
//	FLOAT, DOUBLE, FLOAT16                     a number as encoding/json writes it (0.5, 1e+21);
//	                                           NaN and infinities as the strings "NaN",
//	                                           "Infinity", "-Infinity"
//	DECIMAL(p,s)                               a number with s decimals ("123.40")
//	DATE                                       "2024-01-31"
//	TIME                                       "13:45:00.5" (no zone)
//	TIMESTAMP adjusted to UTC, INT96           "2024-01-31T13:45:00.5Z" (RFC 3339, UTC)
//	TIMESTAMP not adjusted to UTC              "2024-01-31T13:45:00.5" (local time, no zone)
//	UUID                                       "0f8fad5b-d9cb-469f-a165-70867728950e"
//	UNKNOWN (the null type), a null value      null
//	LIST, a repeated field                     an array
//	a group (struct)                           an object
//	MAP                                        an object, each key as text
//	VARIANT                                    an object of its binary fields, as base64
//
// Raw is the record as JSON: the columns and the fields of structs in the
// schema's order, the keys of maps sorted.
//
// parquet-go trusts the sizes a file declares: the footer's lengths and
// counts, a page's sizes and its count of values, the run lengths inside a
// page, the size a compressed page says it has once decompressed. A
// damaged or hostile file could make it allocate gigabytes, loop, or
// panic. So before parquet-go reads anything, eachParquet reads it
// itself, within budgets: the footer (walked as Thrift, every length and
// count checked against the bytes that hold it, then checked as a
// schema), and, before each row group, every page header and every page,
// decompressed to no more than the size it declares, its runs of levels
// and indexes and its delta-coded lengths counted (see surveyChunk). What
// parquet-go still panics on is turned into a problem.

// parquetFooterLimit bounds a Parquet file's footer (its schema and the
// directory of its row groups). A footer takes a few hundred bytes for
// each column of each row group: 64 MiB is ample.
const parquetFooterLimit = 64 << 20

// parquetFooterBudget bounds what decoding the footer may allocate, as
// counted by pqThriftWalk.
const parquetFooterBudget = 512 << 20

// parquetMaxDepth bounds how deeply a schema nests: a list of structs
// holding lists is 5 deep.
const parquetMaxDepth = 64

// pqThriftMaxDepth bounds how deeply the Thrift structures of a footer or a
// page header nest (8 in the Parquet format; unknown fields may add some).
const pqThriftMaxDepth = 32

// pqThriftStructCost is what decoding one Thrift structure is counted as
// allocating: more than the largest structure of the Parquet format
// (a column chunk's, 560 bytes).
const pqThriftStructCost = 640

// parquetLimits bound what reading a Parquet file holds in memory, from
// the limit on a record.
type parquetLimits struct {
	page   int64 // a page's bytes, compressed or not
	values int64 // a page's values (each costs parquet-go up to 16 bytes)
	group  int64 // the pages of a row group, one of each column, held at once
}

// parquetLimitsFor gives a page twice the bytes a record may take (and no
// less than 1 MiB): with MaxRecordSize, 128 MiB and 8 Mi values (DuckDB
// writes pages of up to 100 MiB and 122,880 rows), and 2 GiB of pages held
// at once.
func parquetLimitsFor(limit int64) parquetLimits {
	page := min(max(2*limit, 1<<20), math.MaxInt32)
	return parquetLimits{page: page, values: page / 16, group: 16 * page}
}

// eachParquet reads a Parquet file a row at a time: each row a record, its
// columns the fields.
//
// Problems with the file as a whole (not Parquet, cut off, a damaged
// footer; columns the template needs missing, or of a type it cannot
// read) are returned before any record. A row that cannot be a record
// (larger than opt.limit, JSON text that does not decode) is a problem at
// its line, the row's 1-based number in the file, and reading goes on so
// that every bad row is reported at once (up to records.MaxErrors), fn
// called no more; a damaged page ends the reading. Messages name the row
// group (from 1) and the column. The file is read only if it is a regular
// file (see boundedread.Open).
func eachParquet(name string, opt tableOptions, index *int, fn func(*layout.Record) error) error {
	f, err := boundedread.Open(name)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	r := &parquetReader{name: name, f: f, size: st.Size(), opt: opt, lim: parquetLimitsFor(opt.limit)}
	defer r.close()
	if p := r.open(); p != nil {
		return records.Problems{p}
	}
	if ps := r.checkColumns(); len(ps) > 0 {
		return ps
	}
	return r.rows(index, fn)
}

// parquetReader is one reading of a Parquet file.
type parquetReader struct {
	name string
	f    *os.File
	size int64
	opt  tableOptions
	lim  parquetLimits

	md      format.FileMetaData
	dataEnd int64 // where the footer starts
	pf      *parquet.File
	root    *pqNode
	leaves  []*pqNode

	zstd       *zstd.Decoder
	raw, plain []byte // a page as stored, and decompressed
	header     []byte // a page header
	ints       []int32
}

// close releases the decompressor the reading made.
func (r *parquetReader) close() {
	if r.zstd != nil {
		r.zstd.Close()
	}
}

// problem is a problem with the file at line (0 for the file as a whole).
func (r *parquetReader) problem(line int, format string, args ...any) *records.Problem {
	return &records.Problem{Severity: records.Error, File: r.name, Line: line, Err: records.ErrMalformed,
		Message: fmt.Sprintf(format, args...)}
}

// pqOneLine is an error of parquet-go or a decompressor as one line of a
// message (a control character shown as its escape), cut to a readable
// length.
func pqOneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if strings.ContainsFunc(s, unicode.IsControl) {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// parquetCatch turns a panic of parquet-go, which some damaged files still
// cause past every check, into an error.
func parquetCatch(err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("parquet-go failed: %v", v)
	}
}

// open reads and checks the footer, builds the schema and opens the file
// with parquet-go.
func (r *parquetReader) open() *records.Problem {
	footer, p := r.footer()
	if p != nil {
		return p
	}
	w := pqThriftWalk{src: bytes.NewReader(footer), left: int64(len(footer)), budget: parquetFooterBudget}
	if err := w.structure(0); err != nil {
		return r.problem(0, "the Parquet file's footer is damaged: %v", err)
	}
	if w.left != 0 {
		return r.problem(0, "the Parquet file's footer is damaged: %d bytes follow its end", w.left)
	}
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, footer, &r.md); err != nil {
		return r.problem(0, "the Parquet file's footer is damaged: %s", pqOneLine(err))
	}
	if r.md.EncryptionAlgorithm.Value != nil {
		return r.problem(0, "the Parquet file is encrypted; annosheet reads unencrypted Parquet files")
	}
	if err := r.schema(); err != nil {
		return r.problem(0, "the Parquet file's schema cannot be read: %v", err)
	}
	if p := r.checkRowGroups(); p != nil {
		return p
	}
	var err error
	func() {
		defer parquetCatch(&err)
		r.pf, err = parquet.OpenFile(r.f, r.size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
			parquet.FileReadMode(parquet.ReadModeSync))
	}()
	if err != nil {
		return r.problem(0, "the Parquet file cannot be read: %s", pqOneLine(err))
	}
	return r.sameColumns()
}

// footer reads the footer's bytes, having checked the markers and the
// footer's length.
func (r *parquetReader) footer() ([]byte, *records.Problem) {
	const magic = "PAR1"
	if r.size == 0 {
		return nil, r.problem(0, "the file is empty; expected a Parquet file")
	}
	head := make([]byte, min(r.size, 4))
	if _, err := r.f.ReadAt(head, 0); err != nil {
		return nil, r.problem(0, "cannot read the file: %s", pqOneLine(err))
	}
	switch {
	case string(head) == "PARE":
		return nil, r.problem(0, "the Parquet file is encrypted; annosheet reads unencrypted Parquet files")
	case len(head) < 4 && strings.HasPrefix(magic, string(head)):
		return nil, r.problem(0, "the Parquet file is cut off: it has %d bytes, too few for a Parquet file", r.size)
	case string(head) != magic:
		return nil, r.problem(0, "not a Parquet file: it does not start with PAR1, the mark of a Parquet file")
	case r.size < 12:
		return nil, r.problem(0, "the Parquet file is cut off: it has %d bytes, too few for a Parquet file", r.size)
	}
	var tail [8]byte
	if _, err := r.f.ReadAt(tail[:], r.size-8); err != nil {
		return nil, r.problem(0, "cannot read the file: %s", pqOneLine(err))
	}
	if string(tail[4:]) != magic {
		return nil, r.problem(0, "the Parquet file is cut off or damaged: it does not end with PAR1, the mark after a Parquet file's footer")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > r.size-12 {
		return nil, r.problem(0, "the Parquet file is cut off or damaged: its footer claims %d bytes, and the file holds %d", n, r.size)
	}
	if n > parquetFooterLimit {
		return nil, r.problem(0, "the Parquet file's footer is %s, more than the %s annosheet reads",
			parquetSize(n), boundedread.Size(parquetFooterLimit))
	}
	r.dataEnd = r.size - 8 - n
	footer := make([]byte, n)
	if _, err := r.f.ReadAt(footer, r.dataEnd); err != nil {
		return nil, r.problem(0, "cannot read the file: %s", pqOneLine(err))
	}
	return footer, nil
}

// parquetSize writes a number of bytes for a message: "3.0 GiB", "812 bytes".
func parquetSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			return strconv.FormatFloat(float64(n)/float64(int64(1)<<u.shift), 'f', 1, 64) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// checkRowGroups checks what parquet-go allocates and indexes by: every
// row group has a chunk for each leaf column, with its data inside this
// file; counts are not negative.
func (r *parquetReader) checkRowGroups() *records.Problem {
	if r.md.NumRows < 0 {
		return r.problem(0, "the Parquet file's footer is damaged: it counts %d rows", r.md.NumRows)
	}
	for g := range r.md.RowGroups {
		rg := &r.md.RowGroups[g]
		switch {
		case len(rg.Columns) != len(r.leaves):
			return r.problem(0, "row group %d: the footer lists %d columns for it, and the schema has %d", g+1, len(rg.Columns), len(r.leaves))
		case rg.NumRows < 0:
			return r.problem(0, "row group %d: the footer counts %d rows in it", g+1, rg.NumRows)
		}
		for _, s := range rg.SortingColumns {
			if s.ColumnIdx < 0 || int(s.ColumnIdx) >= len(r.leaves) {
				return r.problem(0, "row group %d: the footer says it is sorted by column %d, which the schema does not have", g+1, s.ColumnIdx)
			}
		}
		for c := range rg.Columns {
			cc := &rg.Columns[c]
			col := r.leaves[c].path
			switch {
			case cc.FilePath != "":
				return r.problem(0, "row group %d, column %s: its data is in another file (%q), which annosheet does not read", g+1, col, cc.FilePath)
			case cc.CryptoMetadata.Value != nil || len(cc.EncryptedColumnMetadata) > 0:
				return r.problem(0, "row group %d, column %s is encrypted; annosheet reads unencrypted Parquet files", g+1, col)
			}
		}
	}
	return nil
}

// sameColumns checks that parquet-go sees the columns the schema has, in
// the same order, at the same levels, of the same kinds.
func (r *parquetReader) sameColumns() *records.Problem {
	var cols []*parquet.Column
	var walk func(c *parquet.Column)
	walk = func(c *parquet.Column) {
		if c.Leaf() {
			cols = append(cols, c)
			return
		}
		for _, ch := range c.Columns() {
			walk(ch)
		}
	}
	walk(r.pf.Root())
	if len(cols) != len(r.leaves) {
		return r.problem(0, "the Parquet file's schema cannot be read: parquet-go sees %d columns, and the schema has %d", len(cols), len(r.leaves))
	}
	for i, c := range cols {
		n := r.leaves[i]
		kind, err := pqKind(c)
		switch {
		case err != nil:
			return r.problem(0, "the Parquet file's schema cannot be read: column %s: %s", n.path, pqOneLine(err))
		case c.Index() != i || c.MaxDefinitionLevel() != n.def || c.MaxRepetitionLevel() != n.rep:
			return r.problem(0, "the Parquet file's schema cannot be read: parquet-go sees column %s differently", n.path)
		case n.leaf.conv != pqConvNull && kind != parquet.Kind(n.leaf.kind):
			return r.problem(0, "column %s: its logical type does not fit its physical type, %s", n.path, pqPhysicalNames[n.leaf.kind])
		}
	}
	return nil
}

// pqKind is the kind of values parquet-go reads from a column (asking
// some of its types panics).
func pqKind(c *parquet.Column) (k parquet.Kind, err error) {
	defer parquetCatch(&err)
	return c.Type().Kind(), nil
}

// checkColumns checks the columns against what the template reads: each
// column it needs is there, and each it reads a list or an object from is
// nested or holds JSON text.
func (r *parquetReader) checkColumns() records.Problems {
	byName := make(map[string]*pqNode, len(r.root.children))
	names := make([]string, len(r.root.children)) // as in the file
	shown := make([]string, len(r.root.children)) // as messages show them
	for i, c := range r.root.children {
		byName[c.name] = c
		names[i], shown[i] = c.name, c.path
	}
	var ps records.Problems
	for _, need := range r.opt.needed {
		if byName[need] != nil {
			continue
		}
		msg := fmt.Sprintf("the file has no column %q, which the template reads", need)
		if s := suggest.Words(need, names); s != "" {
			msg += s
		} else {
			list := shown
			if len(list) > 20 {
				list = append(slices.Clip(list[:20]), "…")
			}
			msg += " (its columns: " + strings.Join(list, ", ") + ")"
		}
		ps = append(ps, r.problem(0, "%s", msg))
	}
	for _, name := range pqSortedKeys(r.opt.nested) {
		n := byName[name]
		if n == nil || !r.opt.nested[name] || n.repeated || n.shape != pqLeafShape {
			continue
		}
		if l := n.leaf; l.kind == format.ByteArray && (l.conv == pqConvString || l.conv == pqConvBytes && l.typeName == "BYTE_ARRAY") {
			l.conv, l.jsonText = pqConvString, true
			continue
		}
		ps = append(ps, r.problem(0, "column %s is %s; the template reads a list or an object there", n.path, n.leaf.typeName))
	}
	return ps
}

// pqSortedKeys is the keys of m, sorted, so that problems come in a
// stable order.
func pqSortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// rows reads the row groups in turn, each checked (see survey) before
// parquet-go reads it, and calls fn with each row's record.
func (r *parquetReader) rows(index *int, fn func(*layout.Record) error) error {
	var bad records.Problems
	a := &pqAssembler{r: r, vals: make([][]pqVal, len(r.leaves))}
	line := 0
	for g := range r.md.RowGroups {
		if p := r.survey(g); p != nil {
			return append(bad, p)
		}
		cols := make([]*pqColumn, len(r.leaves))
		chunks := r.pf.RowGroups()[g].ColumnChunks()
		for c := range cols {
			cols[c] = &pqColumn{leaf: r.leaves[c].leaf, chunk: chunks[c], buf: make([]parquet.Value, 256),
				where: fmt.Sprintf("row group %d, column %s", g+1, r.leaves[c].path)}
		}
		err := func() error {
			defer pqCloseColumns(cols)
			n := r.md.RowGroups[g].NumRows
			for i := int64(0); i < n; i++ {
				line++
				rec, rowProblem, p := a.row(g, cols, line, i, n)
				switch {
				case p != nil:
					return append(bad, p)
				case rowProblem != nil:
					if bad = append(bad, rowProblem); len(bad) >= records.MaxErrors {
						return bad
					}
					continue
				case len(bad) > 0:
					continue
				}
				rec.Index = *index
				*index++
				if err := fn(rec); err != nil {
					return err
				}
			}
			for _, c := range cols {
				if _, err := c.peek(); err != io.EOF {
					if err != nil {
						return append(bad, r.problem(line, "%s: %s", c.where, pqOneLine(err)))
					}
					return append(bad, r.problem(line, "%s holds more rows than the %d the footer counts in the row group", c.where, n))
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return bad
	}
	return nil
}

// pqShape is what a node of the schema stands for in JSON.
type pqShape int

const (
	pqLeafShape  pqShape = iota // a value
	pqGroupShape                // an object: the node's fields
	pqListShape                 // an array: the occurrences of elem
	pqMapShape                  // an object: the key and value of each occurrence of elem
)

// pqNode is a node of the schema: a column, a struct's field, a list's
// element.
type pqNode struct {
	name string
	path string // from the root, dotted, for messages
	// repeated and optional are the node's repetition; def and rep are the
	// definition and repetition levels at which it is present (and
	// repeats).
	repeated, optional bool
	def, rep           int
	children           []*pqNode
	lo, hi             int // the leaf columns under the node
	shape              pqShape
	// elem is the repeated node of a list or a map; item the element of a
	// three-level list (nil for the legacy two-level ones, whose elements
	// are elem itself); key and value a map's.
	elem, item, key, value *pqNode
	leaf                   *pqLeaf
}

// schema builds the tree of the schema from the footer's flattened list,
// depth first, checking that it is one: the counts of children add up,
// leaves have a type, groups have fields, names do not repeat.
func (r *parquetReader) schema() error {
	els := r.md.Schema
	if len(els) == 0 {
		return errors.New("it is empty")
	}
	if els[0].Type.Valid {
		return errors.New("its root is a column, not a group")
	}
	b := &pqSchemaBuilder{els: els, i: 1}
	r.root = &pqNode{}
	if err := b.children(r.root, &els[0], 0); err != nil {
		return err
	}
	if b.i != len(els) {
		return fmt.Errorf("it lists %d elements, and its tree holds %d", len(els), b.i)
	}
	r.leaves = b.leaves
	return nil
}

// pqShow is a column's name as messages show it: quoted if it is empty
// or holds a control character (a message is one line).
func pqShow(name string) string {
	if name == "" || strings.ContainsFunc(name, unicode.IsControl) {
		return strconv.Quote(name)
	}
	return name
}

// pqSchemaBuilder walks the footer's schema elements, depth first.
type pqSchemaBuilder struct {
	els    []format.SchemaElement
	i      int
	leaves []*pqNode
}

// children reads the fields of group n, whose element is el.
func (b *pqSchemaBuilder) children(n *pqNode, el *format.SchemaElement, depth int) error {
	k := 0
	if el.NumChildren.Valid {
		k = int(el.NumChildren.V)
	}
	what := "column " + n.path
	if n.path == "" {
		what = "its root"
	}
	if k <= 0 {
		return fmt.Errorf("%s is a group with no fields", what)
	}
	if k > len(b.els)-b.i {
		return fmt.Errorf("%s claims %d fields, more than the schema has left", what, k)
	}
	seen := make(map[string]bool, k)
	for range k {
		ch, err := b.node(n, depth+1)
		if err != nil {
			return err
		}
		if seen[ch.name] {
			return fmt.Errorf("two columns are named %s", ch.path)
		}
		seen[ch.name] = true
		n.children = append(n.children, ch)
	}
	return nil
}

// node reads the next element, a field of parent, and what it holds: its
// levels, its type if it is a column, its shape if it is a group.
func (b *pqSchemaBuilder) node(parent *pqNode, depth int) (*pqNode, error) {
	if depth > parquetMaxDepth {
		return nil, fmt.Errorf("column %s nests more than %d deep", parent.path, parquetMaxDepth)
	}
	if b.i >= len(b.els) {
		return nil, errors.New("its fields claim more elements than it lists")
	}
	el := &b.els[b.i]
	b.i++
	name := el.Name
	if !utf8.ValidString(name) {
		name = string([]rune(name)) // as JSON would have it
	}
	n := &pqNode{name: name, path: pqShow(name), def: parent.def, rep: parent.rep}
	if parent.path != "" {
		n.path = parent.path + "." + n.path
	}
	rt := format.Required
	if el.RepetitionType.Valid {
		rt = el.RepetitionType.V
	}
	switch rt {
	case format.Required:
	case format.Optional:
		n.optional = true
		n.def++
	case format.Repeated:
		n.repeated = true
		n.def++
		n.rep++
	default:
		return nil, fmt.Errorf("column %s has an unknown repetition (%d)", n.path, rt)
	}
	n.lo = len(b.leaves)
	if el.Type.Valid {
		if el.NumChildren.Valid && el.NumChildren.V > 0 {
			return nil, fmt.Errorf("column %s has both a type and fields", n.path)
		}
		l, err := pqNewLeaf(el, n.path)
		if err != nil {
			return nil, err
		}
		l.col, l.node = len(b.leaves), n
		n.leaf, n.shape = l, pqLeafShape
		b.leaves = append(b.leaves, n)
		n.hi = len(b.leaves)
		return n, nil
	}
	if err := b.children(n, el, depth); err != nil {
		return nil, err
	}
	n.hi = len(b.leaves)
	n.shape = pqGroupShape
	lt := el.LogicalType.Value
	ct := deprecated.ConvertedType(-1)
	if el.ConvertedType.Valid {
		ct = el.ConvertedType.V
	}
	_, isList := lt.(*format.ListType)
	_, isMap := lt.(*format.MapType)
	isList = isList || lt == nil && ct == deprecated.List
	isMap = isMap || lt == nil && (ct == deprecated.Map || ct == deprecated.MapKeyValue)
	if len(n.children) != 1 || !n.children[0].repeated {
		return n, nil
	}
	r := n.children[0]
	switch {
	case isList:
		n.shape, n.elem = pqListShape, r
		// The three-level form, unless the repeated group is one of the
		// legacy forms' element structs (the backward-compatibility rules
		// of the Parquet format's LogicalTypes.md).
		if r.shape == pqGroupShape && len(r.children) == 1 && r.name != "array" && r.name != n.name+"_tuple" {
			n.item = r.children[0]
		}
	case isMap && r.shape == pqGroupShape && len(r.children) == 2 && r.children[0].shape == pqLeafShape && !r.children[0].repeated:
		n.shape, n.elem, n.key, n.value = pqMapShape, r, r.children[0], r.children[1]
	}
	return n, nil
}

// pqConv is how a leaf's values become JSON values.
type pqConv int

const (
	pqConvString pqConv = iota
	pqConvBytes         // base64
	pqConvBool
	pqConvInt // signed, from INT32 or INT64
	pqConvUint
	pqConvFloat // FLOAT and DOUBLE
	pqConvFloat16
	pqConvDecimal
	pqConvDate
	pqConvTime
	pqConvTimestamp
	pqConvInt96
	pqConvUUID
	pqConvNull
)

// pqLeaf is a leaf column: its physical type and how its values become
// JSON values.
type pqLeaf struct {
	col      int
	node     *pqNode
	kind     format.Type
	length   int // a FIXED_LEN_BYTE_ARRAY's
	conv     pqConv
	scale    int   // a DECIMAL's
	unit     int64 // a TIME's or TIMESTAMP's units in a second
	utc      bool  // a TIMESTAMP adjusted to UTC
	typeName string
	// jsonText is set on a string column that the template reads a list or
	// an object from: its values are JSON text.
	jsonText bool
}

var pqPhysicalNames = map[format.Type]string{
	format.Boolean: "BOOLEAN", format.Int32: "INT32", format.Int64: "INT64", format.Int96: "INT96",
	format.Float: "FLOAT", format.Double: "DOUBLE", format.ByteArray: "BYTE_ARRAY", format.FixedLenByteArray: "FIXED_LEN_BYTE_ARRAY",
}

// pqMaxDecimalScale bounds a DECIMAL's scale, which sets how many digits
// each of its values is written with.
const pqMaxDecimalScale = 1000

// pqNewLeaf reads a leaf column's types: its physical type, and the logical
// type annotating it (or the converted type of older writers).
func pqNewLeaf(el *format.SchemaElement, path string) (*pqLeaf, error) {
	l := &pqLeaf{kind: el.Type.V}
	phys, ok := pqPhysicalNames[l.kind]
	if !ok {
		return nil, fmt.Errorf("column %s has an unknown type (%d)", path, l.kind)
	}
	if l.kind == format.FixedLenByteArray {
		if !el.TypeLength.Valid || el.TypeLength.V <= 0 || el.TypeLength.V > 1<<20 {
			return nil, fmt.Errorf("column %s is a FIXED_LEN_BYTE_ARRAY of no sensible length", path)
		}
		l.length = int(el.TypeLength.V)
		phys = fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", l.length)
	}
	l.typeName = phys
	// physical is the conversion of the physical type alone.
	switch l.kind {
	case format.Boolean:
		l.conv = pqConvBool
	case format.Int32, format.Int64:
		l.conv = pqConvInt
	case format.Int96:
		l.conv = pqConvInt96
	case format.Float, format.Double:
		l.conv = pqConvFloat
	default:
		l.conv = pqConvBytes
	}
	annotated := func(name string, conv pqConv, kinds ...format.Type) {
		if slices.Contains(kinds, l.kind) {
			l.conv = conv
			l.typeName = name
			if name != phys && conv != pqConvString {
				l.typeName = name + " (" + phys + ")"
			}
		}
	}
	str := []format.Type{format.ByteArray, format.FixedLenByteArray}
	ints := []format.Type{format.Int32, format.Int64}
	unit := func(u format.TimeUnit) int64 {
		switch u.Value.(type) {
		case *format.MilliSeconds:
			return 1e3
		case *format.MicroSeconds:
			return 1e6
		case *format.NanoSeconds:
			return 1e9
		}
		return 0
	}
	decimal := func(scale int32) error {
		if scale < 0 || scale > pqMaxDecimalScale {
			return fmt.Errorf("column %s is a DECIMAL of scale %d", path, scale)
		}
		l.scale = int(scale)
		annotated("DECIMAL", pqConvDecimal, format.Int32, format.Int64, format.ByteArray, format.FixedLenByteArray)
		return nil
	}
	switch lt := el.LogicalType.Value.(type) {
	case *format.MapType, *format.ListType, *format.VariantType:
		return nil, fmt.Errorf("column %s has a group's type (%s) on a value of type %s", path, lt, phys)
	case *format.StringType:
		annotated("STRING", pqConvString, str...)
	case *format.EnumType:
		annotated("ENUM", pqConvString, str...)
	case *format.JsonType:
		annotated("JSON", pqConvString, str...)
	case *format.BsonType:
		annotated("BSON", pqConvBytes, str...)
	case *format.UUIDType:
		// parquet-go reads a UUID as 16 bytes, whatever the schema says.
		if l.kind != format.FixedLenByteArray || l.length != 16 {
			return nil, fmt.Errorf("column %s is a UUID of type %s", path, phys)
		}
		annotated("UUID", pqConvUUID, format.FixedLenByteArray)
	case *format.Float16Type:
		if l.length == 2 {
			annotated("FLOAT16", pqConvFloat16, format.FixedLenByteArray)
		}
	case *format.DecimalType:
		if err := decimal(lt.Scale); err != nil {
			return nil, err
		}
	case *format.DateType:
		annotated("DATE", pqConvDate, format.Int32)
	case *format.TimeType:
		if l.unit = unit(lt.Unit); l.unit != 0 {
			annotated("TIME", pqConvTime, ints...)
		}
	case *format.TimestampType:
		if l.unit = unit(lt.Unit); l.unit != 0 {
			l.utc = lt.IsAdjustedToUTC
			annotated("TIMESTAMP", pqConvTimestamp, format.Int64)
		}
	case *format.IntType:
		if !lt.IsSigned {
			annotated(fmt.Sprintf("UINT%d", lt.BitWidth), pqConvUint, ints...)
		}
	case *format.NullType:
		l.conv, l.typeName = pqConvNull, "UNKNOWN"
	case nil:
		if !el.ConvertedType.Valid {
			break
		}
		switch ct := el.ConvertedType.V; ct {
		case deprecated.Map, deprecated.MapKeyValue, deprecated.List:
			return nil, fmt.Errorf("column %s has a group's type (a map's or a list's) on a value of type %s", path, phys)
		case deprecated.UTF8:
			annotated("STRING", pqConvString, str...)
		case deprecated.Enum:
			annotated("ENUM", pqConvString, str...)
		case deprecated.Json:
			annotated("JSON", pqConvString, str...)
		case deprecated.Bson:
			annotated("BSON", pqConvBytes, str...)
		case deprecated.Decimal:
			if el.Scale.Valid {
				if err := decimal(el.Scale.V); err != nil {
					return nil, err
				}
			}
		case deprecated.Date:
			annotated("DATE", pqConvDate, format.Int32)
		case deprecated.TimeMillis:
			l.unit = 1e3
			annotated("TIME", pqConvTime, format.Int32)
		case deprecated.TimeMicros:
			l.unit = 1e6
			annotated("TIME", pqConvTime, format.Int64)
		case deprecated.TimestampMillis, deprecated.TimestampMicros:
			l.unit, l.utc = 1e3, true
			if ct == deprecated.TimestampMicros {
				l.unit = 1e6
			}
			annotated("TIMESTAMP", pqConvTimestamp, format.Int64)
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			annotated("UINT", pqConvUint, ints...)
		case deprecated.Interval:
			// parquet-go reads an INTERVAL as 12 bytes, whatever the schema
			// says; they are given as base64.
			if l.kind != format.FixedLenByteArray || l.length != 12 {
				return nil, fmt.Errorf("column %s is an INTERVAL of type %s", path, phys)
			}
			l.typeName = "INTERVAL (" + phys + ")"
		}
	}
	return l, nil
}

// pqVal is one value of a leaf column in a row, with its levels; v is
// its JSON value (nil unless the value is defined).
type pqVal struct {
	rep, def int32
	v        any
}

// pqColumn reads a leaf column's values of one row group, a page at a
// time, a batch of values at a time.
type pqColumn struct {
	leaf  *pqLeaf
	where string // "row group 2, column text", for messages
	chunk parquet.ColumnChunk
	pages parquet.Pages
	vr    parquet.ValueReader
	buf   []parquet.Value
	i, n  int
	done  bool
}

// pqCloseColumns closes the pages the columns of a row group opened.
func pqCloseColumns(cols []*pqColumn) {
	for _, c := range cols {
		if c.pages != nil {
			c.close()
		}
	}
}

// close closes the column's pages.
func (c *pqColumn) close() (err error) {
	defer parquetCatch(&err)
	return c.pages.Close()
}

// peek returns the next value, io.EOF after the last.
func (c *pqColumn) peek() (*parquet.Value, error) {
	if c.i >= c.n {
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
	return &c.buf[c.i], nil
}

// fill reads the next batch of values, from the next page when the page
// is done.
func (c *pqColumn) fill() (err error) {
	defer parquetCatch(&err)
	for idle := 0; ; {
		if c.done {
			return io.EOF
		}
		if c.pages == nil {
			c.pages = c.chunk.Pages()
		}
		if c.vr == nil {
			p, err := c.pages.ReadPage()
			if err == io.EOF {
				c.done = true
				return io.EOF
			}
			if err != nil {
				return err
			}
			c.vr = p.Values()
		}
		n, err := c.vr.ReadValues(c.buf)
		c.i, c.n = 0, n
		switch {
		case err == io.EOF:
			c.vr = nil
		case err != nil:
			return err
		case n == 0:
			if idle++; idle > 100 {
				return errors.New("a page gives no values")
			}
		}
		if n > 0 {
			return nil
		}
	}
}

// pqAssembler puts a row's values together into its record.
type pqAssembler struct {
	r    *parquetReader
	vals [][]pqVal // each leaf column's values in the row
}

// errPqLevels is what a row whose levels do not fit the schema gives.
var errPqLevels = errors.New("the levels of its values do not fit the schema")

// row reads row i (of n) of row group g, at line, into its record; or it
// returns the problem of the row (reading goes on) or of the file.
//
// The row's values are counted as they are read: their JSON (at least as
// many bytes as pqJSONSize says) against the limit on a record, their
// number against half of it (a value takes at least a byte and a comma).
// Past either, the rest of the row is read and dropped.
func (a *pqAssembler) row(g int, cols []*pqColumn, line int, i, n int64) (rec *layout.Record, rowProblem, fileProblem *records.Problem) {
	r := a.r
	limit := r.opt.limit
	maxValues := max(limit/2, 1)
	size, count := int64(2), int64(0)
	over, invalid := false, false
	for c, col := range cols {
		node := col.leaf.node
		vals := a.vals[c][:0]
		v, err := col.peek()
		switch {
		case err == io.EOF:
			return nil, nil, r.problem(line, "%s: the column's values end at row %d of the %d the footer counts in the row group", col.where, i+1, n)
		case err != nil:
			return nil, nil, r.problem(line, "%s: %s", col.where, pqOneLine(err))
		case v.RepetitionLevel() != 0:
			return nil, nil, r.problem(line, "%s: %v", col.where, errPqLevels)
		}
		for {
			rep, def := v.RepetitionLevel(), v.DefinitionLevel()
			if rep > node.rep || def > node.def {
				return nil, nil, r.problem(line, "%s: %v", col.where, errPqLevels)
			}
			if !over {
				pv := pqVal{rep: int32(rep), def: int32(def)}
				if def == node.def && !v.IsNull() {
					var bad bool
					var err error
					pv.v, bad, err = col.leaf.convert(v)
					if err != nil && rowProblem == nil {
						rowProblem = r.problem(line, "%s: %v", col.where, err)
					}
					invalid = invalid || bad
					size += pqJSONSize(pv.v)
				}
				count++
				over = size > limit || count > maxValues
				vals = append(vals, pv)
			}
			if col.i++; col.i < col.n {
				v = &col.buf[col.i]
			} else if v, err = col.peek(); err == io.EOF {
				break
			} else if err != nil {
				return nil, nil, r.problem(line, "%s: %s", col.where, pqOneLine(err))
			}
			if v.RepetitionLevel() == 0 {
				break
			}
		}
		a.vals[c] = vals
	}
	switch {
	case size > limit:
		return nil, r.tooLarge(line, g, i), nil
	case over:
		return nil, r.problem(line, "the row (row %d of row group %d) holds more than %d values, more than a record of %s may hold",
			i+1, g+1, maxValues, boundedread.Size(limit)), nil
	case rowProblem != nil:
		return nil, rowProblem, nil
	}
	data, err := a.record()
	if err != nil {
		return nil, nil, r.problem(line, "row group %d, %v", g+1, err)
	}
	raw, err := a.raw(data)
	if err != nil {
		return nil, r.problem(line, "row %d of row group %d: %v", i+1, g+1, err), nil
	}
	if int64(len(raw)) > limit {
		return nil, r.tooLarge(line, g, i), nil
	}
	return &layout.Record{Data: data, Raw: raw, File: r.name, Line: line, InvalidUTF8: invalid}, nil, nil
}

// tooLarge is the problem of a row over the limit on a record.
func (r *parquetReader) tooLarge(line, g int, i int64) *records.Problem {
	return r.problem(line, "the row (row %d of row group %d) is larger than the %s a record may be", i+1, g+1, boundedread.Size(r.opt.limit))
}

// pqJSONSize is no more than the bytes a defined value v takes in
// JSON, with the comma after it. (A value that is not defined stands,
// with those of the other columns under the same absent field, for one
// null or [], and counts for nothing.)
func pqJSONSize(v any) int64 {
	switch v := v.(type) {
	case string:
		return int64(len(v)) + 3
	case json.Number:
		return int64(len(v)) + 1
	case bool:
		return 5
	}
	return 3 // null; decoded JSON text: at least its brackets
}

// pqSpan is where the values of one leaf column lie, in a part of a row.
type pqSpan struct{ from, to int }

// pqRanges are the spans of the leaf columns base, base+1, … in a part of
// a row: one occurrence of a node.
type pqRanges struct {
	base int
	s    []pqSpan
}

// at is the span of leaf column c.
func (rg pqRanges) at(c int) pqSpan { return rg.s[c-rg.base] }

// record puts the row's values together: an object of the top-level
// columns.
func (a *pqAssembler) record() (map[string]any, error) {
	all := pqRanges{s: make([]pqSpan, len(a.vals))}
	for c, v := range a.vals {
		all.s[c] = pqSpan{0, len(v)}
	}
	out := make(map[string]any, len(a.r.root.children))
	for _, ch := range a.r.root.children {
		v, err := a.field(ch, all)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", ch.path, err)
		}
		out[ch.name] = v
	}
	return out, nil
}

// first is the first value of n's first leaf column in rg.
func (a *pqAssembler) first(n *pqNode, rg pqRanges) (pqVal, error) {
	sp := rg.at(n.lo)
	if sp.from >= sp.to {
		return pqVal{}, errPqLevels
	}
	return a.vals[n.lo][sp.from], nil
}

// field is the value of field n in one occurrence of its parent: an
// array of its occurrences if it repeats, null if it is absent.
func (a *pqAssembler) field(n *pqNode, rg pqRanges) (any, error) {
	if n.repeated {
		parts, err := a.split(n, rg)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			if out[i], err = a.present(n, p); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if n.optional {
		v, err := a.first(n, rg)
		if err != nil {
			return nil, err
		}
		if v.def < int32(n.def) {
			return nil, nil
		}
	}
	return a.present(n, rg)
}

// present is the value of one occurrence of n.
func (a *pqAssembler) present(n *pqNode, rg pqRanges) (any, error) {
	switch n.shape {
	case pqLeafShape:
		sp := rg.at(n.lo)
		if sp.to-sp.from != 1 {
			return nil, errPqLevels
		}
		v := a.vals[n.lo][sp.from]
		if v.def != int32(n.def) {
			return nil, errPqLevels
		}
		return v.v, nil
	case pqListShape:
		parts, err := a.split(n.elem, rg)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			if n.item != nil {
				out[i], err = a.field(n.item, p)
			} else {
				out[i], err = a.present(n.elem, p)
			}
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	case pqMapShape:
		parts, err := a.split(n.elem, rg)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(parts))
		for _, p := range parts {
			k, err := a.present(n.key, p)
			if err != nil {
				return nil, err
			}
			if out[pqKeyText(k)], err = a.field(n.value, p); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	out := make(map[string]any, len(n.children))
	for _, ch := range n.children {
		v, err := a.field(ch, rg)
		if err != nil {
			return nil, err
		}
		out[ch.name] = v
	}
	return out, nil
}

// split cuts one occurrence of a repeated node's parent into the node's
// occurrences: each starts at a value that repeats at the node's level.
func (a *pqAssembler) split(r *pqNode, rg pqRanges) ([]pqRanges, error) {
	v, err := a.first(r, rg)
	if err != nil {
		return nil, err
	}
	if v.def < int32(r.def) {
		return nil, nil // none: each leaf holds one value saying so
	}
	// Count the occurrences in the first leaf, then cut every leaf.
	sp := rg.at(r.lo)
	count := 1
	for i := sp.from + 1; i < sp.to; i++ {
		if a.vals[r.lo][i].rep <= int32(r.rep) {
			count++
		}
	}
	width := r.hi - r.lo
	spans := make([]pqSpan, count*width)
	parts := make([]pqRanges, count)
	for k := range parts {
		parts[k] = pqRanges{base: r.lo, s: spans[k*width : (k+1)*width]}
	}
	for c := r.lo; c < r.hi; c++ {
		sp := rg.at(c)
		if sp.from >= sp.to {
			return nil, errPqLevels
		}
		k, start := 0, sp.from
		for i := sp.from + 1; i <= sp.to; i++ {
			if i < sp.to && a.vals[c][i].rep > int32(r.rep) {
				continue
			}
			if k >= count {
				return nil, errPqLevels
			}
			parts[k].s[c-r.lo] = pqSpan{start, i}
			k, start = k+1, i
		}
		if k != count {
			return nil, errPqLevels
		}
	}
	return parts, nil
}

// pqKeyText is a map's key as an object's key.
func pqKeyText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// raw writes the record as JSON: columns and struct fields in the schema's
// order, map keys sorted.
func (a *pqAssembler) raw(data map[string]any) ([]byte, error) {
	b := []byte{'{'}
	for i, ch := range a.r.root.children {
		if i > 0 {
			b = append(b, ',')
		}
		b = pqAppendString(b, ch.name)
		b = append(b, ':')
		var err error
		if b, err = pqRawField(b, ch, data[ch.name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// pqRawField appends the value of field n (as pqAssembler.field gives it).
func pqRawField(b []byte, n *pqNode, v any) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	if n.repeated {
		return pqRawList(b, v, func(b []byte, e any) ([]byte, error) { return pqRawPresent(b, n, e) })
	}
	return pqRawPresent(b, n, v)
}

// pqRawList appends an array, each element as each appends it.
func pqRawList(b []byte, v any, each func([]byte, any) ([]byte, error)) ([]byte, error) {
	list, _ := v.([]any)
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// pqRawPresent appends the value of one occurrence of n (as
// pqAssembler.present gives it).
func pqRawPresent(b []byte, n *pqNode, v any) ([]byte, error) {
	switch n.shape {
	case pqLeafShape:
		switch v := v.(type) {
		case nil:
			return append(b, "null"...), nil
		case string:
			return pqAppendString(b, v), nil
		case json.Number:
			return append(b, v...), nil
		case bool:
			return strconv.AppendBool(b, v), nil
		}
		j, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(b, j...), nil
	case pqListShape:
		return pqRawList(b, v, func(b []byte, e any) ([]byte, error) {
			if n.item != nil {
				return pqRawField(b, n.item, e)
			}
			return pqRawPresent(b, n.elem, e)
		})
	case pqMapShape:
		m, _ := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = pqAppendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = pqRawField(b, n.value, m[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	m, _ := v.(map[string]any)
	b = append(b, '{')
	for i, ch := range n.children {
		if i > 0 {
			b = append(b, ',')
		}
		b = pqAppendString(b, ch.name)
		b = append(b, ':')
		var err error
		if b, err = pqRawField(b, ch, m[ch.name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// pqAppendString appends s as encoding/json writes it.
func pqAppendString(b []byte, s string) []byte {
	j, _ := json.Marshal(s)
	return append(b, j...)
}

// pqMaxDecimalBytes bounds a DECIMAL stored as bytes: 128 bytes hold 308
// digits.
const pqMaxDecimalBytes = 128

// convert is the JSON value of a defined value of the leaf; invalid says
// that a string had bytes that are not UTF-8, replaced by U+FFFD.
func (l *pqLeaf) convert(v *parquet.Value) (out any, invalid bool, err error) {
	switch l.conv {
	case pqConvString:
		s := string(v.ByteArray())
		if !utf8.ValidString(s) {
			s, invalid = string([]rune(s)), true
		}
		if !l.jsonText || s == "" {
			return s, invalid, nil
		}
		if d, ok := fastDecode([]byte(s)); ok {
			return d, invalid, nil
		}
		d, err := decodeJSON(s)
		if err != nil {
			return nil, invalid, fmt.Errorf("holds a list or an object for the template, as JSON text: %v", err)
		}
		return d, invalid, nil
	case pqConvBytes:
		return base64.StdEncoding.EncodeToString(v.ByteArray()), false, nil
	case pqConvBool:
		return v.Boolean(), false, nil
	case pqConvInt:
		return json.Number(strconv.FormatInt(l.int64(v), 10)), false, nil
	case pqConvUint:
		if l.kind == format.Int32 {
			return json.Number(strconv.FormatUint(uint64(uint32(v.Int32())), 10)), false, nil
		}
		return json.Number(strconv.FormatUint(uint64(v.Int64()), 10)), false, nil
	case pqConvFloat:
		if l.kind == format.Float {
			return pqFloat(float64(v.Float()), 32), false, nil
		}
		return pqFloat(v.Double(), 64), false, nil
	case pqConvFloat16:
		b := v.ByteArray()
		if len(b) != 2 {
			return nil, false, fmt.Errorf("a FLOAT16 of %d bytes", len(b))
		}
		return pqFloat(float64(pqFloat16(binary.LittleEndian.Uint16(b))), 32), false, nil
	case pqConvDecimal:
		var digits string
		switch l.kind {
		case format.Int32, format.Int64:
			digits = strconv.FormatInt(l.int64(v), 10)
		default:
			b := v.ByteArray()
			if len(b) > pqMaxDecimalBytes {
				return nil, false, fmt.Errorf("a DECIMAL of %d bytes, more than the %d annosheet reads", len(b), pqMaxDecimalBytes)
			}
			n := new(big.Int).SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 {
				n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			digits = n.String()
		}
		return json.Number(pqDecimalText(digits, l.scale)), false, nil
	case pqConvDate:
		return time.Unix(int64(v.Int32())*86400, 0).UTC().Format(time.DateOnly), false, nil
	case pqConvTime:
		return pqTimeOfDay(l.int64(v), l.unit), false, nil
	case pqConvTimestamp:
		return pqTimestamp(pqUnitTime(v.Int64(), l.unit), l.utc), false, nil
	case pqConvInt96:
		x := v.Int96()
		nanos := int64(uint64(x[1])<<32 | uint64(x[0]))
		days := int64(x[2]) - 2440588 // the Julian day of 1970-01-01
		return pqTimestamp(time.Unix(days*86400, 0).Add(time.Duration(nanos)), true), false, nil
	case pqConvUUID:
		b := v.ByteArray()
		if len(b) != 16 {
			return base64.StdEncoding.EncodeToString(b), false, nil
		}
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], false, nil
	}
	return nil, false, nil
}

// int64 is the value of an INT32 or INT64 column.
func (l *pqLeaf) int64(v *parquet.Value) int64 {
	if l.kind == format.Int32 {
		return int64(v.Int32())
	}
	return v.Int64()
}

// pqFloat writes a float as encoding/json does (bits is 32 for a FLOAT):
// the shortest decimal that reads back the same, without an exponent
// from 1e-6 to 1e21. JSON has no NaN nor infinities: those are strings.
func pqFloat(f float64, bits int) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	fmtByte := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			fmtByte = 'e'
		}
	}
	b := strconv.AppendFloat(nil, f, fmtByte, -1, bits)
	if fmtByte == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return json.Number(b)
}

// pqFloat16 is an IEEE 754 half-precision number's value.
func pqFloat16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// A subnormal half is a normal float.
		e := uint32(127 - 15 + 1)
		for frac&0x400 == 0 {
			frac <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// pqDecimalText places the decimal point scale digits from the right of an
// integer's digits.
func pqDecimalText(digits string, scale int) string {
	if scale == 0 {
		return digits
	}
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// pqUnitTime is the time n units (of which a second has unit) after 1970.
func pqUnitTime(n, unit int64) time.Time {
	switch unit {
	case 1e3:
		return time.UnixMilli(n)
	case 1e6:
		return time.UnixMicro(n)
	}
	return time.Unix(0, n)
}

// pqTimestamp writes a time as RFC 3339 in UTC, the fraction of a second
// as long as it needs; a time not adjusted to UTC is written without its
// zone.
func pqTimestamp(t time.Time, utc bool) string {
	s := t.UTC().Format("2006-01-02T15:04:05.999999999")
	if utc {
		s += "Z"
	}
	return s
}

// pqTimeOfDay writes n units (of which a second has unit) after midnight as
// 15:04:05, the fraction of a second as long as it needs.
func pqTimeOfDay(n, unit int64) string {
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	sec, frac := u/uint64(unit), u%uint64(unit)
	s := fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		width := len(strconv.FormatInt(unit, 10)) - 1
		s += "." + strings.TrimRight(fmt.Sprintf("%0*d", width, frac), "0")
	}
	if neg {
		s = "-" + s
	}
	return s
}

// survey checks the pages of row group g before parquet-go reads them, so
// that reading them holds no more than the budgets allow (see
// surveyChunk), and that the pages of the columns held at once fit the
// row group's budget.
func (r *parquetReader) survey(g int) *records.Problem {
	var total int64
	for c := range r.leaves {
		cost, p := r.surveyChunk(g, c)
		if p != nil {
			return p
		}
		if total += cost; total > r.lim.group {
			return r.problem(0, "row group %d: its pages, one of each column, would take %s at once, more than the %s annosheet holds of a row group",
				g+1, parquetSize(total), boundedread.Size(r.lim.group))
		}
	}
	return nil
}

// surveyChunk reads the pages of column c in row group g as parquet-go
// will, checking what parquet-go trusts: each page's header (its Thrift
// walked within the chunk's bytes), its sizes and its count of values
// within the page budgets, its data decompressed to no more than the size
// it declares, then its encoded contents: the runs of repetition and
// definition levels, of dictionary indexes and of booleans count no more
// values than the page has, and delta-coded lengths add up to no more
// than a page may hold. It returns what parquet-go will hold of the
// column at once: its dictionary and its largest page, decoded.
func (r *parquetReader) surveyChunk(g, c int) (int64, *records.Problem) {
	leaf := r.leaves[c].leaf
	where := fmt.Sprintf("row group %d, column %s", g+1, leaf.node.path)
	m := &r.md.RowGroups[g].Columns[c].MetaData
	// parquet-go decompresses a column's pages in every row group with
	// the codec of its first.
	codec := r.md.RowGroups[0].Columns[c].MetaData.Codec
	base := m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		base = m.DictionaryPageOffset
	}
	n := m.TotalCompressedSize
	if base < 4 || n < 0 || base > r.dataEnd || n > r.dataEnd-base {
		return 0, r.problem(0, "%s: the footer places its data outside the file (%d bytes at byte %d of %d): the file is damaged or cut off",
			where, n, base, r.size)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r.f, base, n), 64<<10)
	var dictCost, pageCost int64
	for pos, page := int64(0), 1; pos < n; page++ {
		h, hn, err := r.pageHeader(br, n-pos)
		if err != nil {
			return 0, r.problem(0, "%s, page %d: the page header is damaged: %v", where, page, err)
		}
		pos += hn
		size := int64(h.CompressedPageSize)
		switch {
		case size > n-pos:
			return 0, r.problem(0, "%s, page %d: the page runs past the end of the column's data: the file is damaged or cut off", where, page)
		case max(size, int64(h.UncompressedPageSize)) > r.lim.page:
			return 0, r.problem(0, "%s, page %d: the page is %s, more than the %s a page may be",
				where, page, parquetSize(max(size, int64(h.UncompressedPageSize))), boundedread.Size(r.lim.page))
		}
		r.raw = slices.Grow(r.raw[:0], int(size))[:size]
		if _, err := io.ReadFull(br, r.raw); err != nil {
			return 0, r.problem(0, "%s, page %d: cannot read the page: %s", where, page, pqOneLine(err))
		}
		pos += size
		cost, err := r.checkPage(leaf, codec, h, r.raw)
		if err != nil {
			return 0, r.problem(0, "%s, page %d: %v", where, page, err)
		}
		if h.Type == format.DictionaryPage {
			dictCost = max(dictCost, cost)
		} else {
			pageCost = max(pageCost, cost)
		}
	}
	return dictCost + pageCost, nil
}

// pageHeader reads a page header of at most left bytes: its Thrift
// walked first, every length and count within its bytes (and a page's
// budget), then decoded.
func (r *parquetReader) pageHeader(br *bufio.Reader, left int64) (*format.PageHeader, int64, error) {
	w := pqThriftWalk{src: br, left: min(left, r.lim.page), keep: true, bytes: r.header[:0], budget: r.lim.page}
	err := w.structure(0)
	r.header = w.bytes
	if err != nil {
		return nil, 0, err
	}
	h := new(format.PageHeader)
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, w.bytes, h); err != nil {
		return nil, 0, errors.New(pqOneLine(err))
	}
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return nil, 0, errors.New("it gives a negative size")
	}
	return h, int64(len(w.bytes)), nil
}

// checkPage checks one page's data (see surveyChunk) and returns what
// parquet-go allocates to hold it decoded.
func (r *parquetReader) checkPage(leaf *pqLeaf, codec format.CompressionCodec, h *format.PageHeader, page []byte) (int64, error) {
	var n int32
	switch {
	case h.Type == format.DictionaryPage && h.DictionaryPageHeader.Valid:
		n = h.DictionaryPageHeader.V.NumValues
	case h.Type == format.DataPage && h.DataPageHeader.Valid:
		n = h.DataPageHeader.V.NumValues
	case h.Type == format.DataPageV2 && h.DataPageHeaderV2.Valid:
		v2 := &h.DataPageHeaderV2.V
		if v2.NumNulls < 0 || v2.NumRows < 0 || v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 {
			return 0, errors.New("its header gives a negative count")
		}
		n = v2.NumValues
	default:
		return 0, fmt.Errorf("a page of type %s, which annosheet does not read", h.Type)
	}
	if n < 0 {
		return 0, errors.New("its header gives a negative count of values")
	}
	if int64(n) > r.lim.values {
		return 0, fmt.Errorf("the page claims %d values, more than the %d a page may hold", n, r.lim.values)
	}
	values := int64(n)
	cost := int64(h.UncompressedPageSize) + 16*values + values*int64(leaf.length)
	declared := int64(h.UncompressedPageSize)
	node := leaf.node
	switch h.Type {
	case format.DictionaryPage:
		data, err := r.decompress(codec, page, declared)
		if err != nil {
			return 0, err
		}
		enc := h.DictionaryPageHeader.V.Encoding
		if enc == format.PlainDictionary {
			enc = format.Plain
		}
		return cost, r.checkValues(leaf, enc, data, values)
	case format.DataPage:
		data, err := r.decompress(codec, page, declared)
		if err != nil {
			return 0, err
		}
		v1 := &h.DataPageHeader.V
		if node.rep > 0 {
			if data, err = pqLevelsV1(data, v1.RepetitionLevelEncoding, node.rep, values); err != nil {
				return 0, fmt.Errorf("its repetition levels: %w", err)
			}
		}
		if node.def > 0 {
			if data, err = pqLevelsV1(data, v1.DefinitionLevelEncoding, node.def, values); err != nil {
				return 0, fmt.Errorf("its definition levels: %w", err)
			}
		}
		return cost, r.checkValues(leaf, v1.Encoding, data, values)
	}
	v2 := &h.DataPageHeaderV2.V
	repLen, defLen := int64(v2.RepetitionLevelsByteLength), int64(v2.DefinitionLevelsByteLength)
	if repLen+defLen > int64(len(page)) {
		return 0, errors.New("its levels take more bytes than the page has")
	}
	if node.rep > 0 && repLen > 0 {
		if err := pqRuns(page[:repLen], pqLevelWidth(node.rep), values, pqRunBytes); err != nil {
			return 0, fmt.Errorf("its repetition levels: %w", err)
		}
	}
	if node.def > 0 && defLen > 0 {
		if err := pqRuns(page[repLen:repLen+defLen], pqLevelWidth(node.def), values, pqRunBytes); err != nil {
			return 0, fmt.Errorf("its definition levels: %w", err)
		}
	}
	data := page[repLen+defLen:]
	if !v2.IsCompressed.Valid || v2.IsCompressed.V {
		var err error
		if data, err = r.decompress(codec, data, declared); err != nil {
			return 0, err
		}
	}
	return cost, r.checkValues(leaf, v2.Encoding, data, values)
}

// pqLevelWidth is the bits a level of at most max takes.
func pqLevelWidth(max int) int { return bits.Len(uint(max)) }

// pqLevelsV1 checks the levels at the start of a version 1 data page (their
// length, then the levels) and returns what follows them.
func pqLevelsV1(data []byte, enc format.Encoding, max int, n int64) ([]byte, error) {
	if len(data) < 4 {
		return nil, errors.New("they are cut off")
	}
	size := int64(binary.LittleEndian.Uint32(data))
	if size > int64(len(data)-4) {
		return nil, errors.New("they are cut off")
	}
	levels, rest := data[4:4+size], data[4+size:]
	switch enc {
	case format.RLE:
		return rest, pqRuns(levels, pqLevelWidth(max), n, pqRunBytes)
	case format.BitPacked:
		return rest, nil // as many levels as bits: bounded by the page
	}
	return nil, fmt.Errorf("they are encoded as %s, which annosheet does not read", enc)
}

// checkValues checks the encoded values of a page of n values, as the
// encodings parquet-go decodes them allocate: by run lengths, by the
// count a delta-coded block declares, by the lengths it gives.
func (r *parquetReader) checkValues(leaf *pqLeaf, enc format.Encoding, data []byte, n int64) error {
	k := leaf.kind
	refuse := func() error {
		return fmt.Errorf("its values are %s in the encoding %s, which annosheet does not read", pqPhysicalNames[k], enc)
	}
	switch enc {
	case format.Plain:
		return nil // as many values as the data holds
	case format.PlainDictionary, format.RLEDictionary:
		if k == format.Boolean {
			return refuse()
		}
		if len(data) == 0 {
			return nil
		}
		if data[0] > 32 {
			return fmt.Errorf("its dictionary indexes are %d bits wide", data[0])
		}
		return pqRuns(data[1:], int(data[0]), n, pqRunInt32)
	case format.RLE:
		if k != format.Boolean {
			return refuse()
		}
		if len(data) == 4 {
			return nil
		}
		if len(data) < 4 || int64(binary.LittleEndian.Uint32(data)) > int64(len(data)-4) {
			return errors.New("its values are cut off")
		}
		return pqRuns(data[4:4+binary.LittleEndian.Uint32(data)], 1, n, pqRunBits)
	case format.DeltaBinaryPacked:
		if k != format.Int32 && k != format.Int64 {
			return refuse()
		}
		width := 64
		if k == format.Int32 {
			width = 32
		}
		_, _, err := r.delta(data, n, width, false)
		return err
	case format.DeltaLengthByteArray:
		if k != format.ByteArray {
			return refuse()
		}
		lengths, rest, err := r.delta(data, n, 32, true)
		if err != nil {
			return err
		}
		sum, err := pqSumLengths(lengths)
		if err != nil {
			return err
		}
		if sum > int64(len(rest)) {
			return errors.New("its values' lengths add up to more than the page holds")
		}
		return nil
	case format.DeltaByteArray:
		if k != format.ByteArray && k != format.FixedLenByteArray {
			return refuse()
		}
		prefixes, rest, err := r.delta(data, n, 32, true)
		if err != nil {
			return err
		}
		prefix, err := pqSumLengths(prefixes)
		if err != nil {
			return err
		}
		suffixes, rest, err := r.delta(rest, n, 32, true)
		if err != nil {
			return err
		}
		suffix, err := pqSumLengths(suffixes)
		if err != nil {
			return err
		}
		if suffix > int64(len(rest)) {
			return errors.New("its values' lengths add up to more than the page holds")
		}
		if prefix+suffix > r.lim.page {
			return fmt.Errorf("its values add up to %s, more than the %s a page may hold", parquetSize(prefix+suffix), boundedread.Size(r.lim.page))
		}
		return nil
	case format.ByteStreamSplit:
		if k == format.Boolean || k == format.ByteArray || k == format.Int96 {
			return refuse()
		}
		return nil
	}
	return refuse()
}

// pqSumLengths adds up delta-coded lengths, none negative.
func pqSumLengths(lengths []int32) (int64, error) {
	var sum int64
	for _, l := range lengths {
		if l < 0 {
			return 0, errors.New("a value has a negative length")
		}
		sum += int64(l)
	}
	return sum, nil
}

// pqRunKind is what a run-length/bit-packed hybrid holds, as parquet-go
// decodes it: levels (a byte each), 32-bit dictionary indexes, booleans
// (a bit each, bit-packed runs counted in bytes).
type pqRunKind int

const (
	pqRunBytes pqRunKind = iota
	pqRunInt32
	pqRunBits
)

// runs checks a run-length/bit-packed hybrid of values width bits wide,
// walked as parquet-go's decoder walks it: the runs count at most n
// values (and a bit-packed run's padding), and a bit-packed run has the
// bytes it needs. A run's header can claim two billion values in five
// bytes, and parquet-go decodes every run before it looks at the count.
func pqRuns(src []byte, width int, n int64, kind pqRunKind) error {
	var total int64
	for i := 0; i < len(src); {
		u, k := binary.Uvarint(src[i:])
		if k <= 0 {
			return errors.New("a run's header is damaged")
		}
		i += k
		count, packed := int64(u>>1), u&1 != 0
		if count > math.MaxInt32 {
			return errors.New("a run claims more than 2^31 values")
		}
		if packed {
			var size int64
			switch kind {
			case pqRunBits:
				size = count
			default:
				size = count * int64(width) // 8 values of width bits: width bytes
			}
			if size > int64(len(src)-i) {
				return errors.New("a bit-packed run is cut off")
			}
			i += int(size)
			total += 8 * count
		} else {
			size := 0
			switch kind {
			case pqRunBytes:
				if width != 0 {
					size = 1
				}
			case pqRunInt32:
				size = (width + 7) / 8
			case pqRunBits:
				size = min(1, len(src)-i)
			}
			if size > len(src)-i {
				return errors.New("a run is cut off")
			}
			i += size
			total += count
		}
		if total > 2*n+1024 {
			return fmt.Errorf("its runs hold %d values or more, for the %d of the page", total, n)
		}
	}
	return nil
}

// delta walks a DELTA_BINARY_PACKED block of values width bits wide as
// parquet-go decodes it: the count of values it declares is at most n
// (parquet-go allocates by it), its bit widths fit its values. With
// lengths, it decodes the block (as 32-bit values, as parquet-go does) and
// returns them; it returns what follows the block.
func (r *parquetReader) delta(src []byte, n int64, width int, lengths bool) ([]int32, []byte, error) {
	damaged := errors.New("its delta header is damaged")
	var header [3]uint64
	for i := range header {
		u, k := binary.Uvarint(src)
		if k <= 0 {
			return nil, nil, damaged
		}
		header[i], src = u, src[k:]
	}
	first, k := binary.Varint(src)
	if k <= 0 {
		return nil, nil, damaged
	}
	src = src[k:]
	blockSize, miniBlocks, total := header[0], header[1], header[2]
	switch {
	case miniBlocks == 0 || blockSize == 0 || blockSize%128 != 0 || blockSize > 65536 || (blockSize/miniBlocks)%32 != 0:
		return nil, nil, damaged
	case total > uint64(n):
		return nil, nil, fmt.Errorf("a delta-coded block claims %d values, more than the %d the page has", total, n)
	case total == 0:
		return nil, src, nil
	case width == 32 && (first < math.MinInt32 || first > math.MaxInt32):
		return nil, nil, damaged
	}
	perMini := int(blockSize / miniBlocks)
	left := int(total) - 1
	var out []int32
	if lengths {
		out = slices.Grow(r.ints[:0], int(total))
		out = append(out, int32(first))
	}
	last := int32(first)
	for left > 0 && len(src) > 0 {
		minDelta, k := binary.Varint(src)
		if k <= 0 {
			return nil, nil, errors.New("a delta-coded block is damaged")
		}
		src = src[k:]
		widths := src[:min(int(miniBlocks), len(src))]
		src = src[len(widths):]
		for _, w := range widths {
			count := min(perMini, left)
			if int(w) > width {
				return nil, nil, fmt.Errorf("a delta-coded block has values %d bits wide", w)
			}
			size := perMini * int(w) / 8
			data := src[:min(size, len(src))]
			src = src[len(data):]
			if lengths {
				for j := range count {
					last += int32(minDelta) + int32(pqUnpackBits(data, j*int(w), int(w)))
					out = append(out, last)
				}
			}
			if left -= count; left == 0 {
				break
			}
		}
	}
	if left > 0 {
		return nil, nil, errors.New("a delta-coded block is cut off")
	}
	if lengths {
		r.ints = out
	}
	return out, src, nil
}

// pqUnpackBits is the width-bit value at bit pos of data, least significant
// bit first; bits past the end of data are 0.
func pqUnpackBits(data []byte, pos, width int) uint64 {
	var v uint64
	for b := 0; b < width; b++ {
		i := (pos + b) / 8
		if i >= len(data) {
			break
		}
		v |= uint64(data[i]>>((pos+b)%8)&1) << b
	}
	return v
}

// errPqLarger is a page that decompresses to more than it declares.
var errPqLarger = errors.New("it decompresses to more than the size it declares")

// decompress decompresses a page of declared bytes with codec, as
// parquet-go will, but never to more than those bytes: parquet-go takes
// what a decompressor gives, of any size, and some of its codecs loop or
// panic on damaged data.
func (r *parquetReader) decompress(codec format.CompressionCodec, src []byte, declared int64) ([]byte, error) {
	fail := func(err error) ([]byte, error) {
		if errors.Is(err, errPqLarger) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot decompress the page (%s): %s", codec, pqOneLine(err))
	}
	buf := func(n int64) []byte {
		r.plain = slices.Grow(r.plain[:0], int(n))
		return r.plain[:n]
	}
	switch codec {
	case format.Uncompressed:
		return src, nil
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fail(err)
		}
		if int64(n) > declared {
			return nil, errPqLarger
		}
		out, err := snappy.Decode(buf(int64(n)), src)
		if err != nil {
			return fail(err)
		}
		return out, nil
	case format.Gzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return fail(err)
		}
		return pqReadAtMost(zr, buf(declared+1), fail)
	case format.Brotli:
		return pqReadAtMost(brotli.NewReader(bytes.NewReader(src)), buf(declared+1), fail)
	case format.Zstd:
		if r.zstd == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
				zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderMaxMemory(uint64(r.lim.page)))
			if err != nil {
				return fail(err)
			}
			r.zstd = d
		}
		out, err := r.zstd.DecodeAll(src, buf(declared)[:0:declared])
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, errPqLarger
		}
		if err != nil {
			return fail(err)
		}
		return out, nil
	case format.Lz4Raw:
		out := buf(declared)
		n, err := lz4.UncompressBlock(src, out)
		if err != nil {
			return nil, errors.New("cannot decompress the page (LZ4_RAW): it is damaged, or larger than the size it declares")
		}
		return out[:n], nil
	}
	return nil, fmt.Errorf("the page is compressed with %s, which annosheet does not read", codec)
}

// pqReadAtMost reads a decompressor to its end into buf, one byte longer
// than the page may be.
func pqReadAtMost(rd io.Reader, buf []byte, fail func(error) ([]byte, error)) ([]byte, error) {
	n := 0
	for {
		if n == len(buf) {
			return nil, errPqLarger
		}
		k, err := rd.Read(buf[n:])
		n += k
		if err == io.EOF {
			if n == len(buf) {
				return nil, errPqLarger
			}
			return buf[:n], nil
		}
		if err != nil {
			return fail(err)
		}
	}
}

// pqThriftSource is what pqThriftWalk reads.
type pqThriftSource interface {
	io.Reader
	io.ByteReader
}

// pqThriftWalk walks one structure of the Thrift compact protocol (the
// encoding of a Parquet footer and page headers) without decoding it,
// checking what a decoder trusts: every length and count fits in the
// bytes left (at least a byte an item), structures nest no deeper than
// pqThriftMaxDepth, and what decoding allocates (counted generously:
// pqThriftStructCost a structure, 24 bytes a list, 8 an item) stays within
// budget. parquet-go's decoder allocates a list by the count its header
// claims, and skips unknown fields by recursion, however deep.
type pqThriftWalk struct {
	src   pqThriftSource
	left  int64 // the bytes the structure may still take
	keep  bool  // keep the bytes walked in bytes
	bytes []byte
	cost  int64
	// budget bounds cost.
	budget int64
}

var errPqThriftShort = errors.New("it is cut off")

// byte reads one byte of the structure.
func (w *pqThriftWalk) byte() (byte, error) {
	if w.left <= 0 {
		return 0, errPqThriftShort
	}
	b, err := w.src.ReadByte()
	if err != nil {
		if err == io.EOF {
			err = errPqThriftShort
		}
		return 0, err
	}
	w.left--
	if w.keep {
		w.bytes = append(w.bytes, b)
	}
	return b, nil
}

// skip reads n bytes of the structure.
func (w *pqThriftWalk) skip(n int64) error {
	if n > w.left {
		return errPqThriftShort
	}
	w.left -= n
	var err error
	if w.keep {
		start := len(w.bytes)
		w.bytes = slices.Grow(w.bytes, int(n))[:start+int(n)]
		_, err = io.ReadFull(w.src, w.bytes[start:])
	} else {
		_, err = io.CopyN(io.Discard, w.src, n)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errPqThriftShort
	}
	return err
}

// uvarint reads a varint (a zigzag-coded one as its bits).
func (w *pqThriftWalk) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 70; shift += 7 {
		b, err := w.byte()
		if err != nil {
			return 0, err
		}
		if b < 0x80 {
			if shift == 63 && b > 1 {
				break
			}
			return x | uint64(b)<<shift, nil
		}
		x |= uint64(b&0x7f) << shift
	}
	return 0, errors.New("a number overflows")
}

// charge counts n bytes that decoding the structure allocates.
func (w *pqThriftWalk) charge(n int64) error {
	if w.cost += n; w.cost > w.budget {
		return fmt.Errorf("decoding it would take more than %s", boundedread.Size(w.budget))
	}
	return nil
}

// structure walks a structure's fields up to its stop byte.
func (w *pqThriftWalk) structure(depth int) error {
	if depth > pqThriftMaxDepth {
		return fmt.Errorf("its structures nest more than %d deep", pqThriftMaxDepth)
	}
	if err := w.charge(pqThriftStructCost); err != nil {
		return err
	}
	for {
		b, err := w.byte()
		if err != nil {
			return err
		}
		if b == 0 {
			return nil
		}
		if b>>4 == 0 {
			if _, err := w.uvarint(); err != nil { // the field's id
				return err
			}
		}
		if t := b & 0x0f; t != 1 && t != 2 { // a boolean field's value is its type
			if err := w.value(t, depth); err != nil {
				return err
			}
		}
	}
}

// pqThriftMinSize is the fewest bytes a value of type t takes.
func pqThriftMinSize(t byte) int64 {
	switch t {
	case 7:
		return 8
	case 13:
		return 16
	}
	return 1
}

// value walks a value of type t: a field's, or an item's of a list or a
// map (where a boolean takes a byte).
func (w *pqThriftWalk) value(t byte, depth int) error {
	switch t {
	case 1, 2, 3: // booleans in lists, a byte each; i8
		_, err := w.byte()
		return err
	case 4, 5, 6: // i16, i32, i64
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		if n > math.MaxInt32 || int64(n) > w.left {
			return fmt.Errorf("it holds %d bytes in %d", n, w.left)
		}
		if err := w.charge(int64(n)); err != nil {
			return err
		}
		return w.skip(int64(n))
	case 9, 10: // list, set
		b, err := w.byte()
		if err != nil {
			return err
		}
		size, et := uint64(b>>4), b&0x0f
		if size == 15 {
			if size, err = w.uvarint(); err != nil {
				return err
			}
		}
		if size > math.MaxInt32 || int64(size) > w.left/pqThriftMinSize(et) {
			return fmt.Errorf("it lists %d items in %d bytes", size, w.left)
		}
		if err := w.charge(24 + 8*int64(size)); err != nil {
			return err
		}
		for range size {
			if err := w.value(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		size, err := w.uvarint()
		if err != nil || size == 0 {
			return err
		}
		b, err := w.byte()
		if err != nil {
			return err
		}
		kt, vt := b>>4, b&0x0f
		if size > math.MaxInt32 || int64(size) > w.left/(pqThriftMinSize(kt)+pqThriftMinSize(vt)) {
			return fmt.Errorf("it maps %d items in %d bytes", size, w.left)
		}
		if err := w.charge(24 + 64*int64(size)); err != nil {
			return err
		}
		for range size {
			if err := w.value(kt, depth+1); err != nil {
				return err
			}
			if err := w.value(vt, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return w.structure(depth + 1)
	case 13: // uuid
		return w.skip(16)
	}
	return fmt.Errorf("it holds a value of unknown type %d", t)
}
