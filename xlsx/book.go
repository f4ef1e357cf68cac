package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/annosheet/annosheet/backend"
)

// book is a workbook package open for reading: its zip archive, what its
// workbook part says, and, once a sheet is read, its shared strings and
// cell formats. Parts are read as streams straight from the archive;
// nothing is written anywhere.
type book struct {
	name  string          // the file as the caller gave it, for messages
	ctx   context.Context // reading stops once it ends; nil: never
	zr    *zip.ReadCloser
	parts map[string]*zip.File // by partKey
	lim   readLimits
	// check is verify's pass over the large parts, put off until close
	// (see openBook); nil when there is none.
	check *lateCheck

	sheets     []sheetEntry
	date1904   bool
	sstPart    string // "" when the workbook has none
	stylesPart string

	mu      sync.Mutex
	closed  bool
	loaded  bool
	loadErr error
	tables  tables
}

// tables are what every sheet's reader looks cells up in: the shared
// strings, read whole (sst) or as needed (lazy), and the cell formats.
type tables struct {
	sst    *sharedStrings
	lazy   *lazyStrings
	styles *styles
}

// sheetEntry is a sheet the workbook lists, in tab order.
type sheetEntry struct {
	name, part string
	worksheet  bool // chartsheets and dialog sheets have no cells
}

// openPackage opens the workbook package at file and reads its workbook
// part and relationships.
func openPackage(file, name string, lim readLimits) (*book, error) {
	zr, err := openZip(file)
	if err != nil {
		return nil, &readError{file: name, kind: ErrDamaged, msg: "it is not a readable zip archive", cause: unpath(err)}
	}
	b := &book{name: name, zr: zr, parts: map[string]*zip.File{}, lim: lim}
	for _, f := range zr.File {
		if k := partKey(f.Name); b.parts[k] == nil {
			b.parts[k] = f
		}
	}
	if err := b.readWorkbook(); err != nil {
		zr.Close()
		return nil, err
	}
	return b, nil
}

func (b *book) grid() *backend.Grid {
	g := &backend.Grid{Kind: backend.KindXLSX, Name: filepath.Base(b.name), Rows: b.rows, Skim: b.skim}
	for _, s := range b.sheets {
		g.Sheets = append(g.Sheets, s.name)
	}
	return g
}

// partKey is how a part is looked up: part names are case-insensitive
// (ECMA-376 Part 2, 6.2.2.3), and some zip tools write backslashes.
func partKey(name string) string {
	return strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(name, `\`, "/"), "/"))
}

func (b *book) has(part string) bool { return b.parts[partKey(part)] != nil }

// close checks the large parts no read went through, closes the
// archive, and gives what the check found (each time it is called):
// damage in a part no read reached.
func (b *book) close() error {
	found := named(b.name, b.check.finish())
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return found
	}
	b.closed, b.tables = true, tables{}
	if err := b.zr.Close(); err != nil && found == nil {
		return err
	}
	return found
}

// partErr gives an error met reading part the file and the part.
func (b *book) partErr(part string, err error) error {
	var re *readError
	if errors.As(err, &re) {
		if re.file == "" {
			re.file = b.name
		}
		if re.part == "" {
			re.part = part
		}
		return re
	}
	var se *scanError
	if errors.As(err, &se) {
		return &readError{file: b.name, kind: se.kind, part: part, cause: se}
	}
	return &readError{file: b.name, kind: ErrDamaged, part: part, cause: err}
}

// openPart opens a part as a stream of XML. A part in UTF-16 (which
// starts with its byte-order mark) is converted to UTF-8 on the way.
func (b *book) openPart(part string) (*xmlScanner, io.Closer, error) {
	f := b.parts[partKey(part)]
	if f == nil {
		return nil, nil, &readError{file: b.name, kind: ErrDamaged, part: part, msg: "the part is missing"}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, b.partErr(part, err)
	}
	if f.UncompressedSize64 >= uint64(b.lim.ahead) {
		rc = readAhead(rc)
	}
	var head [2]byte
	n, err := io.ReadFull(rc, head[:])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		rc.Close()
		return nil, nil, b.partErr(part, err)
	}
	r := io.MultiReader(bytes.NewReader(head[:n]), rc)
	utf16 := true
	switch string(head[:n]) {
	case "\xFF\xFE":
		r = transform.NewReader(r, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
	case "\xFE\xFF":
		r = transform.NewReader(r, unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder())
	default:
		utf16 = false
	}
	s := newScanner(r, int64(min(f.UncompressedSize64, 1<<40)), b.lim.xmlLimits)
	s.utf16, s.ctx = utf16, b.ctx
	return s, rc, nil
}

// readPart reads a whole part with parse, then checks the rest of it to
// its end (where a zip entry's checksum is checked).
func (b *book) readPart(part string, parse func(s *xmlScanner) error) error {
	s, rc, err := b.openPart(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := parse(s); err != nil {
		return b.partErr(part, err)
	}
	if err := s.finish(); err != nil {
		return b.partErr(part, err)
	}
	b.check.readWhole(b.parts[partKey(part)])
	return nil
}

// rel is a relationship of a part, its target resolved to a part name.
type rel struct {
	id, typ, target string
	external        bool
}

// readRels reads the relationships part of the part source ("" for the
// package); ok is false when there is none.
func (b *book) readRels(source string) (rels []rel, ok bool, err error) {
	dir, base := path.Split(source)
	relsPart := dir + "_rels/" + base + ".rels"
	if !b.has(relsPart) {
		return nil, false, nil
	}
	listed := 0
	err = b.readPart(relsPart, func(s *xmlScanner) error {
		if err := rootIs(s, "Relationships"); err != nil {
			return err
		}
		return s.children(func(local []byte) error {
			if string(local) != "Relationship" {
				return nil
			}
			if len(rels) == b.lim.listed {
				return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d relationships (MaxCellFormats)", b.lim.listed)}
			}
			id, _ := s.attrValue("Id")
			typ, _ := s.attrValue("Type")
			target, _ := s.attrValue("Target")
			mode, _ := s.attrValue("TargetMode")
			if listed += len(id) + len(typ) + len(target); listed > maxListedBytes {
				return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("relationships of more than %d bytes", maxListedBytes)}
			}
			r := rel{id: string(id), typ: string(typ), external: string(mode) == "External"}
			if !r.external {
				r.target = resolveTarget(dir, string(target))
			}
			rels = append(rels, r)
			return nil
		})
	})
	return rels, true, err
}

// resolveTarget is the part a relationship's target names: relative to
// the folder of the part that has the relationship, or to the package
// when it starts with a slash.
func resolveTarget(dir, target string) string {
	if u, err := url.PathUnescape(target); err == nil {
		target = u
	}
	if strings.HasPrefix(target, "/") {
		return path.Clean(target)[1:]
	}
	p := path.Join(dir, target)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "" // outside the package
	}
	return p
}

func relType(r rel, kind string) bool { return strings.HasSuffix(r.typ, "/"+kind) }

// readWorkbook finds the workbook part through the package's
// relationships, and reads its sheets (names in tab order, and where each
// is), its date system, and where its shared strings and styles are.
func (b *book) readWorkbook() error {
	wb := "xl/workbook.xml"
	rels, _, err := b.readRels("")
	if err != nil {
		return err
	}
	for _, r := range rels {
		if relType(r, "officeDocument") && !r.external && r.target != "" {
			wb = r.target
			break
		}
	}
	if !b.has(wb) {
		return &readError{file: b.name, kind: ErrNotSpreadsheet, msg: fmt.Sprintf("it is a zip archive without a workbook in it (no part %s)", wb)}
	}
	type listed struct{ name, id string }
	var sheets []listed
	names := 0
	err = b.readPart(wb, func(s *xmlScanner) error {
		k, err := s.next()
		if err != nil {
			return err
		}
		if k != tokStart || string(s.local) != "workbook" {
			return &readError{kind: ErrNotSpreadsheet, msg: fmt.Sprintf("its main part is <%s>, not a workbook", s.name)}
		}
		return s.children(func(local []byte) error {
			switch string(local) {
			case "workbookPr":
				v, _ := s.attrValue("date1904")
				b.date1904 = string(v) == "1" || string(v) == "true"
			case "sheets":
				return s.children(func(local []byte) error {
					if string(local) != "sheet" {
						return nil
					}
					if len(sheets) == b.lim.listed {
						return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("more than %d sheets (MaxCellFormats)", b.lim.listed)}
					}
					name, _ := s.attrValue("name")
					id, _ := s.attrPrefixed("id")
					if names += len(name) + len(id); names > maxListedBytes {
						return &readError{kind: ErrTooLarge, msg: fmt.Sprintf("sheet names of more than %d bytes", maxListedBytes)}
					}
					sheets = append(sheets, listed{string(name), string(id)})
					return nil
				})
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	rels, ok, err := b.readRels(wb)
	if err != nil {
		return err
	}
	dir := path.Dir(wb)
	b.sstPart, b.stylesPart = path.Join(dir, "sharedStrings.xml"), path.Join(dir, "styles.xml")
	byID := map[string]rel{}
	for _, r := range rels {
		byID[r.id] = r
		switch {
		case r.external:
		case relType(r, "sharedStrings"):
			b.sstPart = r.target
		case relType(r, "styles"):
			b.stylesPart = r.target
		}
	}
	damaged := func(format string, args ...any) error {
		return &readError{file: b.name, kind: ErrDamaged, part: wb, msg: fmt.Sprintf(format, args...)}
	}
	seen := map[string]bool{}
	for _, sh := range sheets {
		// Excel tells sheet names apart without regard to case.
		key := strings.ToLower(sh.name)
		switch {
		case sh.name == "":
			return damaged("a sheet without a name")
		case seen[key]:
			return damaged("two sheets are named %q", sh.name)
		case !ok:
			return damaged("it lists sheets, but its relationships (%s_rels/%s.rels) are missing", path.Dir(wb)+"/", path.Base(wb))
		}
		seen[key] = true
		r, found := byID[sh.id]
		if !found || r.external || r.target == "" {
			return damaged("sheet %q names the relationship %q, which its relationships lack", sh.name, sh.id)
		}
		e := sheetEntry{name: sh.name, part: r.target, worksheet: relType(r, "worksheet")}
		if e.worksheet && !b.has(e.part) {
			return damaged("sheet %q is in part %s, which the file lacks", sh.name, e.part)
		}
		b.sheets = append(b.sheets, e)
	}
	return nil
}

// load reads the styles and, when they are small, the shared strings,
// once.
func (b *book) load() (tables, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return tables{}, fmt.Errorf("%s: %w", b.name, os.ErrClosed)
	}
	if !b.loaded {
		b.loaded = true
		b.loadErr = b.loadTables()
	}
	return b.tables, b.loadErr
}

func (b *book) loadTables() error {
	t := &b.tables
	if b.has(b.stylesPart) {
		err := b.readPart(b.stylesPart, func(s *xmlScanner) (err error) {
			t.styles, err = readStyles(s, b.lim)
			return err
		})
		if err != nil {
			return err
		}
	}
	switch f := b.parts[partKey(b.sstPart)]; {
	case f == nil:
		t.sst = &sharedStrings{}
	case f.UncompressedSize64 > uint64(b.lim.sstWhole):
		t.lazy = &lazyStrings{b: b, count: -1}
	default:
		return b.readPart(b.sstPart, func(s *xmlScanner) (err error) {
			// The part's text is at most its size, which is checked as it is read.
			t.sst, err = readSharedStrings(s, b.lim, int(f.UncompressedSize64))
			return err
		})
	}
	return nil
}

// rows is the grid's Rows.
func (b *book) rows(sheet string, fn func(row int, cells []backend.ReadCell) error) error {
	return b.skim(sheet, nil, fn)
}

// skim is the grid's Skim: the cells of the columns keep turns down are
// passed over once fn has had a row.
func (b *book) skim(sheet string, keep func(col int) bool, fn func(row int, cells []backend.ReadCell) error) error {
	var e *sheetEntry
	for i := range b.sheets {
		if b.sheets[i].name == sheet {
			e = &b.sheets[i]
			break
		}
	}
	if e == nil {
		return fmt.Errorf("%s: no sheet named %q", b.name, sheet)
	}
	if !e.worksheet {
		return nil
	}
	t, err := b.load()
	if err == nil {
		err = b.readSheet(e.part, t, keep, fn)
	}
	if err != nil && b.ctx != nil && b.ctx.Err() != nil {
		return b.ctx.Err() // stopped by the caller
	}
	// The grid's reader names the file; Rows says what went wrong in it.
	var re *readError
	if errors.As(err, &re) {
		unnamed := *re
		unnamed.file = ""
		return &unnamed
	}
	return err
}
