package benchdata

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// SharedStringsCopy copies the workbook src to dst in the form Excel and
// LibreOffice save: every inline string cell of every worksheet
// (t="inlineStr" with an <is> element) becomes a t="s" cell whose value
// is an index into the workbook's shared-strings part, equal strings
// sharing one entry. A src that already has a shared-strings part keeps
// its entries and indices, and the new strings follow them; otherwise the
// part is made, with its content type and the workbook's relationship to
// it. The other parts are copied as they are, still compressed.
//
// Worksheets are streamed through, a cell at a time. The table's text
// goes to a temporary file as it grows, so memory holds only a hash of
// each distinct string. CDATA sections inside cells are not expected (no
// spreadsheet writes them) and are copied as they are.
func SharedStringsCopy(src, dst string) (err error) {
	zr, err := zip.OpenReader(src)
	if err != nil {
		return err
	}
	defer zr.Close()
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[f.Name] = f
	}
	ct, err := readPart(parts, "[Content_Types].xml")
	if err != nil {
		return err
	}
	sheets := map[string]bool{}
	hasSST := false
	for _, m := range overrideRE.FindAll(ct, -1) {
		switch attrOf(m, "ContentType") {
		case worksheetType:
			sheets[strings.TrimPrefix(attrOf(m, "PartName"), "/")] = true
		case sstType:
			hasSST = true
		}
	}
	book, err := workbookPart(parts)
	if err != nil {
		return err
	}
	relsName := path.Join(path.Dir(book), "_rels", path.Base(book)+".rels")
	rels, err := readPart(parts, relsName)
	if err != nil {
		return err
	}
	sstName := ""
	ids := map[string]bool{}
	for _, m := range relRE.FindAll(rels, -1) {
		ids[attrOf(m, "Id")] = true
		if attrOf(m, "Type") == sstRel {
			sstName = path.Join(path.Dir(book), attrOf(m, "Target"))
		}
	}

	tmp, err := os.CreateTemp("", "annosheet-sst-*")
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	tab := &stringTable{f: tmp, w: bufio.NewWriterSize(tmp, 1<<20), seen: map[[16]byte]int{}}
	if sstName != "" {
		if f := parts[sstName]; f != nil {
			if err := tab.readExisting(f); err != nil {
				return fmt.Errorf("%s: %s: %w", src, sstName, err)
			}
		}
	} else {
		sstName = path.Join(path.Dir(book), "sharedStrings.xml")
		id := "rIdSharedStrings"
		for i := 2; ids[id]; i++ {
			id = fmt.Sprintf("rIdSharedStrings%d", i)
		}
		rel := fmt.Sprintf(`<Relationship Id="%s" Type="%s" Target="%s"/>`, id, sstRel, path.Base(sstName))
		if rels, err = insertBefore(rels, "</Relationships>", rel); err != nil {
			return fmt.Errorf("%s: %s: %w", src, relsName, err)
		}
	}
	if !hasSST {
		o := fmt.Sprintf(`<Override PartName="/%s" ContentType="%s"/>`, sstName, sstType)
		if ct, err = insertBefore(ct, "</Types>", o); err != nil {
			return fmt.Errorf("%s: [Content_Types].xml: %w", src, err)
		}
	}

	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	bw := bufio.NewWriterSize(out, 1<<20)
	zw := zip.NewWriter(bw)
	for _, f := range zr.File {
		switch {
		case f.Name == sstName:
			// Written last, once the worksheets have added to it.
		case f.Name == "[Content_Types].xml":
			err = writePart(zw, f, ct)
		case f.Name == relsName:
			err = writePart(zw, f, rels)
		case sheets[f.Name]:
			err = tab.rewriteSheet(zw, f)
		default:
			err = copyRaw(zw, f)
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", src, f.Name, err)
		}
	}
	if err := tab.write(zw, sstName); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

const (
	worksheetType = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
	sstType       = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
	sstRel        = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"
	docRel        = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
	mainNS        = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
)

var (
	overrideRE = regexp.MustCompile(`<Override\s[^>]*>`)
	relRE      = regexp.MustCompile(`<Relationship\s[^>]*>`)
)

// attrOf is the value of the attribute name in a start tag, "" if none;
// entities are left as they are.
func attrOf(tag []byte, name string) string {
	start, end := attrSpan(tag, name)
	return string(tag[start:end])
}

// attrSpan is where the value of the attribute name lies in a start tag,
// between its quotes; 0, 0 if there is none.
func attrSpan(tag []byte, name string) (start, end int) {
	i := bytes.IndexAny(tag, " \t\r\n")
	for i >= 0 && i < len(tag) {
		for i < len(tag) && isSpace(tag[i]) {
			i++
		}
		eq := bytes.IndexByte(tag[i:], '=')
		if eq < 0 {
			return 0, 0
		}
		key := bytes.TrimSpace(tag[i : i+eq])
		j := i + eq + 1
		for j < len(tag) && isSpace(tag[j]) {
			j++
		}
		if j >= len(tag) || (tag[j] != '"' && tag[j] != '\'') {
			return 0, 0
		}
		k := bytes.IndexByte(tag[j+1:], tag[j])
		if k < 0 {
			return 0, 0
		}
		if string(key) == name {
			return j + 1, j + 1 + k
		}
		i = j + 1 + k + 1
	}
	return 0, 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// workbookPart is the name of the workbook's main part, from the package
// relationships.
func workbookPart(parts map[string]*zip.File) (string, error) {
	rels, err := readPart(parts, "_rels/.rels")
	if err != nil {
		return "", err
	}
	for _, m := range relRE.FindAll(rels, -1) {
		if attrOf(m, "Type") == docRel {
			return path.Clean(strings.TrimPrefix(attrOf(m, "Target"), "/")), nil
		}
	}
	return "", errors.New("_rels/.rels names no workbook")
}

func readPart(parts map[string]*zip.File, name string) ([]byte, error) {
	f := parts[name]
	if f == nil {
		return nil, fmt.Errorf("no %s in the workbook", name)
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 16<<20))
}

func insertBefore(doc []byte, end, s string) ([]byte, error) {
	i := bytes.LastIndex(doc, []byte(end))
	if i < 0 {
		return nil, fmt.Errorf("no %s", end)
	}
	return append(doc[:i:i], append([]byte(s), doc[i:]...)...), nil
}

func header(f *zip.File) *zip.FileHeader {
	return &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified}
}

func writePart(zw *zip.Writer, f *zip.File, data []byte) error {
	w, err := zw.CreateHeader(header(f))
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func copyRaw(zw *zip.Writer, f *zip.File) error {
	r, err := f.OpenRaw()
	if err != nil {
		return err
	}
	h := f.FileHeader
	w, err := zw.CreateRaw(&h)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

// stringTable is the shared strings: each entry's XML (the content of its
// <si>) written to w as it comes, and the hash of each distinct one.
type stringTable struct {
	f      *os.File      // holds the entries
	w      *bufio.Writer // writes to f
	seen   map[[16]byte]int
	unique int
	count  int // cells that refer to the table
}

// index is the entry of the string whose XML content is x, added when new.
func (t *stringTable) index(x []byte) (int, error) {
	sum := sha256.Sum256(x)
	var k [16]byte
	copy(k[:], sum[:])
	if i, ok := t.seen[k]; ok {
		return i, nil
	}
	i, err := t.add(x)
	t.seen[k] = i
	return i, err
}

func (t *stringTable) add(x []byte) (int, error) {
	t.w.WriteString("<si>")
	t.w.Write(x)
	_, err := t.w.WriteString("</si>")
	t.unique++
	return t.unique - 1, err
}

// readExisting takes in the entries of a shared-strings part, in order, so
// that the indices of the cells that refer to them hold.
func (t *stringTable) readExisting(f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	sc := &scanner{r: bufio.NewReaderSize(r, 1<<16)}
	for {
		tag, err := sc.nextTag(io.Discard)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case tag.name == "si" && tag.empty:
			if _, err := t.keep(nil); err != nil {
				return err
			}
		case tag.name == "si":
			body, err := sc.until("</si>")
			if err != nil {
				return err
			}
			if _, err := t.keep(body); err != nil {
				return err
			}
		}
	}
}

// keep adds an existing entry at the next index; an entry equal to an
// earlier one keeps its own index, and later cells share the first.
func (t *stringTable) keep(x []byte) (int, error) {
	sum := sha256.Sum256(x)
	var k [16]byte
	copy(k[:], sum[:])
	i, err := t.add(x)
	if _, ok := t.seen[k]; !ok {
		t.seen[k] = i
	}
	return i, err
}

// rewriteSheet writes the worksheet f with its inline strings shared.
func (t *stringTable) rewriteSheet(zw *zip.Writer, f *zip.File) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	w, err := zw.CreateHeader(header(f))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	sc := &scanner{r: bufio.NewReaderSize(r, 1<<16)}
	for {
		tag, err := sc.nextTag(bw)
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
		if tag.name != "c" {
			bw.Write(tag.raw)
			continue
		}
		typ := attrOf(tag.raw, "t")
		if typ == "s" {
			t.count++
		}
		if typ != "inlineStr" || tag.empty {
			bw.Write(tag.raw)
			continue
		}
		// The start tag, with its type's value at head[vs:ve]; until
		// keeps it.
		head := tag.raw
		vs, ve := attrSpan(head, "t")
		body, err := sc.until("</c>")
		if err != nil {
			return err
		}
		open, close := bytes.Index(body, []byte("<is>")), bytes.LastIndex(body, []byte("</is>"))
		var x []byte
		switch {
		case open >= 0 && close > open:
			x = body[open+len("<is>") : close]
		case bytes.Contains(body, []byte("<is/>")):
		default:
			return fmt.Errorf("an inline string cell without <is>: %.80s", body)
		}
		i, err := t.index(x)
		if err != nil {
			return err
		}
		t.count++
		bw.Write(head[:vs])
		bw.WriteString("s")
		bw.Write(head[ve : len(head)-1])
		bw.WriteString("><v>")
		bw.WriteString(strconv.Itoa(i))
		bw.WriteString("</v></c>")
	}
}

// write writes the shared-strings part.
func (t *stringTable) write(zw *zip.Writer, name string) error {
	if err := t.w.Flush(); err != nil {
		return err
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`+"\n"+`<sst xmlns="%s" count="%d" uniqueCount="%d">`, mainNS, t.count, t.unique)
	if _, err := io.Copy(w, t.f); err != nil {
		return err
	}
	_, err = io.WriteString(w, "</sst>")
	return err
}

// scanner walks an XML part tag by tag, copying what lies between tags.
type scanner struct {
	r         *bufio.Reader
	buf, body []byte
}

// tag is a start tag: its local name (a prefix is kept in the name), its
// raw bytes, and whether it closes itself.
type tag struct {
	name  string
	raw   []byte
	empty bool
}

// nextTag copies to w everything up to the next start tag and returns it;
// end tags, comments, declarations and CDATA sections are copied too.
// The tag's bytes are valid until the next call.
func (s *scanner) nextTag(w io.Writer) (tag, error) {
	for {
		text, err := s.r.ReadSlice('<')
		switch {
		case err == bufio.ErrBufferFull:
			w.Write(text)
			continue
		case err != nil:
			w.Write(text)
			return tag{}, err
		}
		w.Write(text[:len(text)-1])
		next, err := s.r.Peek(1)
		if err != nil {
			return tag{}, io.ErrUnexpectedEOF
		}
		if next[0] == '/' || next[0] == '?' || next[0] == '!' {
			w.Write([]byte{'<'})
			if next[0] == '!' {
				if p, _ := s.r.Peek(8); string(p) == "![CDATA[" {
					body, err := s.until("]]>")
					if err != nil {
						return tag{}, err
					}
					w.Write(body)
					io.WriteString(w, "]]>")
				}
			}
			continue
		}
		s.buf = append(s.buf[:0], '<')
		quote := byte(0)
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return tag{}, io.ErrUnexpectedEOF
			}
			s.buf = append(s.buf, c)
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '>':
				raw := s.buf
				end := bytes.IndexAny(raw[1:], " \t\r\n/>") + 1
				return tag{name: string(raw[1:end]), raw: raw, empty: raw[len(raw)-2] == '/'}, nil
			}
		}
	}
}

// until reads up to and including end, which ends with '>', and returns
// what came before it; the bytes are valid until the next call.
func (s *scanner) until(end string) ([]byte, error) {
	body := s.body[:0]
	for {
		chunk, err := s.r.ReadSlice('>')
		body = append(body, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return nil, io.ErrUnexpectedEOF
		}
		if bytes.HasSuffix(body, []byte(end)) {
			s.body = body
			return body[:len(body)-len(end)], nil
		}
	}
}
