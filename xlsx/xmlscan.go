package xlsx

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// xmlScanner is a streaming tokenizer for the XML parts of a workbook. It
// reads from an io.Reader through a buffer of its own and hands out start
// and end tags; character data is checked and dropped, or gathered into
// text while keep is set. It checks what makes a document well formed
// (matching tags, one root, legal characters, entities, UTF-8) and refuses
// a DTD or an entity declaration, so that every fault of the bytes is an
// error, never a quiet end. It resolves no namespaces: tags are matched by
// their local names, as spreadsheet readers commonly do.
//
// Everything it hands out is copied out of the read buffer, so a token
// stays valid until the next call of next.
type xmlScanner struct {
	r        io.Reader
	ctx      context.Context // the reading stops once it ends; nil: never
	buf      []byte
	pos, end int
	base     int64 // offset in the stream of buf[0]
	eof      bool
	rerr     error // a read error, kept until reported
	noProg   int   // reads in a row that returned nothing

	// The current tag.
	name      []byte // the qualified name
	local     []byte // the name after its prefix
	selfClose bool
	attrs     []xmlAttr
	abuf      []byte // names and values of attrs
	endNext   bool   // a self-closing tag's end comes next

	// Text. While keep is set, character data (CDATA included) is
	// appended to text, which the caller resets; textLimit bounds it.
	// When clip is set, text that would grow past clip bytes is not
	// kept, and clipped is set instead of an error.
	keep      bool
	text      []byte
	textLimit int
	clip      int
	clipped   bool

	// The open elements' names, end to end.
	stack    []byte
	stackEnd []int
	rootDone bool
	started  bool // anything but a byte-order mark was read

	lim scanLimits
	// utf16 is set when the part was converted from UTF-16, which its
	// XML declaration then names.
	utf16 bool
}

// xmlAttr is an attribute of the current tag: offsets into abuf.
type xmlAttr struct {
	name, local, value, valueEnd int
}

// scanLimits bound what one tag may hold.
type scanLimits struct {
	name  int // bytes of one name
	attrs int // attributes of one tag
	value int // bytes of one attribute value
	tag   int // bytes of a tag's attribute names and values together
	depth int // elements open at once
}

// defaultScanLimits are far above what spreadsheet applications write
// (excelize puts some 60 namespace declarations, 4 KiB, on a sheet's
// root; Excel nests a sheet's extensions some ten deep) and keep a
// hostile tag from holding much memory.
var defaultScanLimits = scanLimits{name: 1 << 10, attrs: 1 << 10, value: MaxCellBytes, tag: 1 << 20, depth: 256}

// tokKind is what next found.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
)

// errTextLimit is the kind of error next returns when kept text passes
// textLimit; callers say which limit it was.
var errTextLimit = errors.New("text beyond the limit")

// scanError is a fault in a part's bytes, at an offset of the inflated
// part.
type scanError struct {
	kind  error // ErrDamaged, ErrTooLarge, ErrDTD or ErrUnsupported
	off   int64
	msg   string
	cause error // a read error, or errTextLimit
}

func (e *scanError) Error() string {
	s := fmt.Sprintf("%s (at byte %d)", e.msg, e.off)
	if e.cause != nil && e.cause != errTextLimit {
		s += ": " + e.cause.Error()
	}
	return s
}

func (e *scanError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// scanBufSize is the size of a scanner's buffer for a large part; a small
// part gets one of its size. The scanner needs 16 bytes at least.
const scanBufSize = 64 << 10

// newScanner scans r, whose size (a hint) is size bytes.
func newScanner(r io.Reader, size int64, lim scanLimits) *xmlScanner {
	n := int(min(max(size+1, 1<<10), scanBufSize))
	return &xmlScanner{r: r, buf: make([]byte, n), lim: lim, textLimit: lim.value}
}

func (s *xmlScanner) offset() int64 { return s.base + int64(s.pos) }

func (s *xmlScanner) syntax(format string, args ...any) error {
	return &scanError{kind: ErrDamaged, off: s.offset(), msg: fmt.Sprintf(format, args...)}
}

func (s *xmlScanner) tooLarge(format string, args ...any) error {
	return &scanError{kind: ErrTooLarge, off: s.offset(), msg: fmt.Sprintf(format, args...)}
}

// ended is the error for a part that ends where more must follow: a read
// error when there was one (a bad checksum, a cut stream), otherwise the
// XML's own fault.
func (s *xmlScanner) ended(where string) error {
	if s.rerr != nil {
		return s.readError()
	}
	return s.syntax("the part ends %s (was the file saved completely?)", where)
}

func (s *xmlScanner) readError() error {
	return &scanError{kind: ErrDamaged, off: s.base + int64(s.end), msg: "cannot read the part", cause: s.rerr}
}

// ensure makes at least n bytes available at buf[pos:], unless the part
// ends first; it reports whether they are. The bytes before pos are given
// up.
func (s *xmlScanner) ensure(n int) bool {
	return s.end-s.pos >= n || s.fill(n)
}

// fill is ensure when the buffer holds fewer than n bytes.
func (s *xmlScanner) fill(n int) bool {
	for s.end-s.pos < n {
		if s.eof || s.rerr != nil {
			return false
		}
		if s.ctx != nil && s.ctx.Err() != nil {
			s.rerr = s.ctx.Err()
			return false
		}
		if s.pos > 0 {
			copy(s.buf, s.buf[s.pos:s.end])
			s.base += int64(s.pos)
			s.end -= s.pos
			s.pos = 0
		}
		k, err := s.r.Read(s.buf[s.end:])
		s.end += k
		switch {
		case errors.Is(err, io.EOF):
			s.eof = true
		case err != nil:
			s.rerr = err
		case k == 0:
			if s.noProg++; s.noProg > 100 {
				s.rerr = io.ErrNoProgress
			}
			continue
		}
		s.noProg = 0
	}
	return true
}

// has reports whether the bytes at pos are lit.
func (s *xmlScanner) has(lit string) bool {
	return s.ensure(len(lit)) && string(s.buf[s.pos:s.pos+len(lit)]) == lit
}

// finish reads the rest of the part, checking it, after the caller has
// what it needs: the checksum of a zip entry is checked at its end.
func (s *xmlScanner) finish() error {
	s.keep = false
	for {
		k, err := s.next()
		if err != nil || k == tokEOF {
			return err
		}
	}
}

// skip reads to the end of the element whose start tag was just read.
func (s *xmlScanner) skip() error {
	keep := s.keep
	s.keep = false
	defer func() { s.keep = keep }()
	for depth := 1; ; {
		k, err := s.next()
		switch {
		case err != nil:
			return err
		case k == tokStart:
			depth++
		case k == tokEnd:
			if depth--; depth == 0 {
				return nil
			}
		}
	}
}

// children reads the children of the element whose start tag was just
// read, up to and with its end tag. At each child's start tag it calls fn
// with the child's local name (valid until fn reads on). fn reads the
// child whole, to its end tag, or not at all (its attributes are there
// to read); children skips a child fn left. It stops at the first error,
// fn's returned as it is.
func (s *xmlScanner) children(fn func(local []byte) error) error {
	for {
		k, err := s.next()
		if err != nil {
			return err
		}
		if k == tokEnd {
			return nil
		}
		open := len(s.stackEnd) // the child is open until its end is read
		if err := fn(s.local); err != nil {
			return err
		}
		if len(s.stackEnd) == open {
			if err := s.skip(); err != nil {
				return err
			}
		}
	}
}

// next reads up to the next start or end tag, or the end of the part.
// An empty-element tag gives a start and then an end.
func (s *xmlScanner) next() (tokKind, error) {
	if s.endNext {
		s.endNext = false
		s.pop()
		return tokEnd, nil
	}
	for {
		if !s.ensure(1) {
			switch {
			case s.rerr != nil:
				return tokEOF, s.readError()
			case len(s.stackEnd) > 0:
				return tokEOF, s.ended(fmt.Sprintf("inside element <%s>", s.top()))
			case !s.rootDone:
				return tokEOF, s.ended("before its root element")
			}
			return tokEOF, nil
		}
		if !s.started {
			if s.has("\xEF\xBB\xBF") {
				s.pos += 3 // a byte-order mark
			}
			s.started = true
			if s.has("<?xml") && s.ensure(6) && isSpace(s.buf[s.pos+5]) {
				if err := s.declaration(); err != nil {
					return tokEOF, err
				}
			}
			continue
		}
		if s.buf[s.pos] != '<' {
			if err := s.charData(); err != nil {
				return tokEOF, err
			}
			continue
		}
		if !s.ensure(2) {
			return tokEOF, s.ended("inside a tag")
		}
		switch c := s.buf[s.pos+1]; {
		case c == '/':
			return tokEnd, s.endTag()
		case c == '?':
			if err := s.procInst(); err != nil {
				return tokEOF, err
			}
		case c == '!':
			if err := s.bang(); err != nil {
				return tokEOF, err
			}
		default:
			return tokStart, s.startTag()
		}
	}
}

func (s *xmlScanner) top() []byte {
	n := len(s.stackEnd)
	start := 0
	if n > 1 {
		start = s.stackEnd[n-2]
	}
	return s.stack[start:s.stackEnd[n-1]]
}

func (s *xmlScanner) pop() {
	n := len(s.stackEnd)
	s.stackEnd = s.stackEnd[:n-1]
	if n > 1 {
		s.stack = s.stack[:s.stackEnd[n-2]]
	} else {
		s.stack = s.stack[:0]
		s.rootDone = true
	}
}

// Byte classes. textStop ends a run of character data; the control
// characters other than tab and line feed are in every stop set, so that
// the slow path checks them.
var (
	textStop, cdataStop, commentStop, piStop [256]bool
	nameByte, nameStart                      [256]bool
)

func init() {
	for _, t := range []*[256]bool{&textStop, &cdataStop, &commentStop, &piStop} {
		for c := 0; c < 0x20; c++ {
			t[c] = c != '\t' && c != '\n'
		}
	}
	textStop['<'], textStop['&'] = true, true
	cdataStop[']'] = true
	commentStop['-'] = true
	piStop['?'] = true
	for c := 0; c < 256; c++ {
		b := byte(c)
		letter := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || b == ':' || b >= 0x80
		nameStart[c] = letter
		nameByte[c] = letter || '0' <= b && b <= '9' || b == '-' || b == '.'
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// chars reads characters up to the next byte of stop, which it leaves
// unread and returns (0 at the end of the part). It checks that each is a
// character XML allows, turns CR LF and a lone CR into LF, and appends
// them to text when keep is set and the caller asks for it.
func (s *xmlScanner) chars(stop *[256]bool, keep bool) (byte, error) {
	for {
		if !s.ensure(1) {
			return 0, nil
		}
		b := s.buf[s.pos:s.end]
		i := 0
		var hi byte
		if stop == &textStop {
			// Eight bytes at a time while none is below 0x20, '<' or
			// '&': long text goes by fast, the rest byte by byte.
			var all uint64
			for ; i+8 <= len(b); i += 8 {
				x := binary.LittleEndian.Uint64(b[i:])
				if hasLess(x, 0x20)|hasZero(x^(lsb*'<'))|hasZero(x^(lsb*'&')) != 0 {
					break
				}
				all |= x
			}
			if all&(lsb*0x80) != 0 {
				hi = 0x80
			}
		}
		for i < len(b) && !stop[b[i]] {
			hi |= b[i]
			i++
		}
		run := b[:i]
		held := 0
		if hi >= 0x80 {
			if i == len(b) && !s.eof {
				// The last character may go on in the next read.
				held = partialRune(run)
				run = run[:len(run)-held]
			}
			if off, ok := checkUTF8(run); !ok {
				s.pos += off
				return 0, s.syntax("invalid UTF-8 or a character XML does not allow")
			}
		}
		if keep {
			if err := s.appendText(run); err != nil {
				return 0, err
			}
		}
		s.pos += len(run)
		if held > 0 {
			if !s.ensure(held+1) && s.rerr != nil {
				return 0, s.readError()
			}
			continue
		}
		if i == len(b) {
			continue
		}
		switch c := b[i]; {
		case c == '\r':
			s.pos++
			if s.ensure(1) && s.buf[s.pos] == '\n' {
				s.pos++
			}
			if keep {
				if err := s.appendText([]byte{'\n'}); err != nil {
					return 0, err
				}
			}
		case c < 0x20:
			return 0, s.syntax("the control character U+%04X is not allowed in XML", c)
		default:
			return c, nil
		}
	}
}

// lsb has the lowest bit of each of eight bytes set.
const lsb = 0x0101010101010101

// hasZero is not 0 when a byte of x is 0.
func hasZero(x uint64) uint64 { return (x - lsb) &^ x & (lsb * 0x80) }

// hasLess is not 0 when a byte of x is below n (at most 0x80).
func hasLess(x uint64, n byte) uint64 { return (x - lsb*uint64(n)) &^ x & (lsb * 0x80) }

// partialRune is the length of an incomplete UTF-8 sequence at the end of
// b, or 0.
func partialRune(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xC0 { // the start of a sequence
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// checkUTF8 reports whether b is valid UTF-8 holding only characters XML
// allows (U+FFFE and U+FFFF are not), and where the first fault is.
func checkUTF8(b []byte) (int, bool) {
	if utf8.Valid(b) && !bytes.Contains(b, []byte("\xEF\xBF\xBE")) && !bytes.Contains(b, []byte("\xEF\xBF\xBF")) {
		return 0, true
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || r == 0xFFFE || r == 0xFFFF {
			return i, false
		}
		i += n
	}
	return 0, true
}

func (s *xmlScanner) appendText(b []byte) error {
	if s.clip > 0 && (s.clipped || len(s.text)+len(b) > s.clip) {
		s.clipped = true
		return nil
	}
	if len(s.text)+len(b) > s.textLimit {
		return &scanError{kind: ErrTooLarge, off: s.offset(), msg: fmt.Sprintf("text longer than %d bytes", s.textLimit), cause: errTextLimit}
	}
	s.text = append(s.text, b...)
	return nil
}

// charData reads character data up to the next tag.
func (s *xmlScanner) charData() error {
	inRoot := len(s.stackEnd) > 0
	for {
		if !inRoot {
			for s.ensure(1) && isSpace(s.buf[s.pos]) {
				s.pos++
			}
			if !s.ensure(1) || s.buf[s.pos] == '<' {
				return nil
			}
			if s.rootDone {
				return s.syntax("text after the root element")
			}
			return s.syntax("text before the root element")
		}
		c, err := s.chars(&textStop, s.keep)
		if err != nil || c == '<' || c == 0 {
			return err
		}
		// c == '&'
		if err := s.entity(s.keep); err != nil {
			return err
		}
	}
}

// entity reads a reference (&name; or &#n;) and appends its character to
// text when keep is set. Only XML's five predefined entities exist: a
// workbook's parts declare none.
func (s *xmlScanner) entity(keep bool) error {
	// A reference is at most 16 bytes between & and ;, so the buffer
	// (of 16 bytes at least) holds it whole unless the part ends first.
	s.ensure(18)
	b := s.buf[s.pos+1 : s.end]
	n := 0
	for ; n < len(b) && b[n] != ';'; n++ {
		if n == 16 || !nameByte[b[n]] && b[n] != '#' {
			s.pos += 1 + n
			return s.syntax("a malformed character reference &%s", b[:n])
		}
	}
	if n == len(b) {
		s.pos += 1 + n
		return s.ended("inside a character reference")
	}
	ref := b[:n]
	s.pos += n + 2
	var r rune
	switch {
	case string(ref) == "lt":
		r = '<'
	case string(ref) == "gt":
		r = '>'
	case string(ref) == "amp":
		r = '&'
	case string(ref) == "apos":
		r = '\''
	case string(ref) == "quot":
		r = '"'
	case len(ref) > 1 && ref[0] == '#':
		v, ok := charRef(ref[1:])
		if !ok || !isXMLChar(v) {
			return s.syntax("&%s; is not a character XML allows", ref)
		}
		r = v
	default:
		return s.syntax("undefined entity &%s;", ref)
	}
	if keep {
		var enc [utf8.UTFMax]byte
		return s.appendText(enc[:utf8.EncodeRune(enc[:], r)])
	}
	return nil
}

// charRef reads the number of a character reference, after its #: decimal,
// or hexadecimal after an x. A number beyond Unicode's reads as not ok.
func charRef(ref []byte) (rune, bool) {
	base := rune(10)
	if len(ref) > 0 && ref[0] == 'x' {
		base, ref = 16, ref[1:]
	}
	var v rune
	for _, c := range ref {
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case base == 16 && 'a' <= c|0x20 && c|0x20 <= 'f':
			d = rune(c|0x20-'a') + 10
		default:
			return 0, false
		}
		if v = v*base + d; v > unicode.MaxRune {
			return 0, false
		}
	}
	return v, len(ref) > 0
}

func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || 0x20 <= r && r <= 0xD7FF ||
		0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF
}

// readName reads an XML name into dst.
func (s *xmlScanner) readName(dst []byte) ([]byte, error) {
	if !s.ensure(1) {
		return dst, s.ended("inside a tag")
	}
	if !nameStart[s.buf[s.pos]] {
		return dst, s.syntax("a name cannot start with %q", s.buf[s.pos])
	}
	start := len(dst)
	for {
		b := s.buf[s.pos:s.end]
		i := 0
		for i < len(b) && nameByte[b[i]] {
			i++
		}
		dst = append(dst, b[:i]...)
		s.pos += i
		if len(dst)-start > s.lim.name {
			return dst, s.tooLarge("an XML name longer than %d bytes", s.lim.name)
		}
		if i < len(b) || !s.ensure(1) {
			break
		}
	}
	if !utf8.Valid(dst[start:]) {
		return dst, s.syntax("a name is not valid UTF-8")
	}
	return dst, nil
}

func (s *xmlScanner) skipSpace() bool {
	if s.pos < s.end && !isSpace(s.buf[s.pos]) {
		return false
	}
	return s.skipSpaces()
}

func (s *xmlScanner) skipSpaces() bool {
	any := false
	for s.ensure(1) && isSpace(s.buf[s.pos]) {
		s.pos++
		any = true
	}
	return any
}

// startTag reads <name attr="value" ...> or its empty-element form.
func (s *xmlScanner) startTag() error {
	if s.rootDone {
		return s.syntax("a second root element")
	}
	if len(s.stackEnd) >= s.lim.depth {
		return s.tooLarge("elements nested more than %d deep", s.lim.depth)
	}
	s.pos++ // <
	var err error
	if s.name, err = s.readName(s.name[:0]); err != nil {
		return err
	}
	s.local = s.name
	if i := bytes.IndexByte(s.name, ':'); i >= 0 {
		s.local = s.name[i+1:]
	}
	s.attrs, s.abuf, s.selfClose = s.attrs[:0], s.abuf[:0], false
	for {
		space := s.skipSpace()
		if !s.ensure(1) {
			return s.ended("inside a tag")
		}
		c := s.buf[s.pos]
		if c == '>' {
			s.pos++
			break
		}
		if c == '/' {
			if !s.has("/>") {
				return s.syntax("a tag with '/' not followed by '>'")
			}
			s.pos += 2
			s.selfClose = true
			break
		}
		if !space {
			return s.syntax("attributes of <%s> not separated by white space", s.name)
		}
		if err := s.attr(); err != nil {
			return err
		}
	}
	if err := s.uniqueAttrs(); err != nil {
		return err
	}
	s.stack = append(s.stack, s.name...)
	s.stackEnd = append(s.stackEnd, len(s.stack))
	s.endNext = s.selfClose
	return nil
}

// attr reads name="value" into attrs.
func (s *xmlScanner) attr() error {
	if len(s.attrs) == s.lim.attrs {
		return s.tooLarge("more than %d attributes on <%s>", s.lim.attrs, s.name)
	}
	var a xmlAttr
	a.name = len(s.abuf)
	var err error
	if s.abuf, err = s.readName(s.abuf); err != nil {
		return err
	}
	a.local = a.name
	if i := bytes.IndexByte(s.abuf[a.name:], ':'); i >= 0 {
		a.local = a.name + i + 1
	}
	a.value = len(s.abuf)
	if a.value > s.lim.tag {
		return s.tooLarge("the attributes of <%s> are longer than %d bytes in all", s.name, s.lim.tag)
	}
	s.skipSpace()
	if !s.ensure(1) || s.buf[s.pos] != '=' {
		return s.syntax("attribute %s of <%s> has no value", s.abuf[a.name:a.value], s.name)
	}
	s.pos++
	s.skipSpace()
	if !s.ensure(1) {
		return s.ended("inside a tag")
	}
	q := s.buf[s.pos]
	if q != '"' && q != '\'' {
		return s.syntax("the value of attribute %s is not quoted", s.abuf[a.name:a.value])
	}
	s.pos++
	// Most values are short and plain: read where they are.
	b := s.buf[s.pos:s.end]
	for i, c := range b {
		if c == q {
			if i > s.lim.value || a.value+i > s.lim.tag {
				break // the slow path says which limit
			}
			s.abuf = append(s.abuf, b[:i]...)
			s.pos += i + 1
			a.valueEnd = len(s.abuf)
			s.attrs = append(s.attrs, a)
			return nil
		}
		if c < 0x20 || c == '<' || c == '&' || c >= 0x80 {
			break
		}
	}
	// The value goes through text, where the entity decoder puts its
	// characters, under the value limit.
	text, keep, limit, clip := s.text, s.keep, s.textLimit, s.clip
	s.text, s.keep, s.textLimit, s.clip = s.abuf, true, min(len(s.abuf)+s.lim.value, s.lim.tag), 0
	err = s.attrChars(q)
	s.abuf, s.text, s.keep, s.textLimit, s.clip = s.text, text, keep, limit, clip
	switch {
	case err == nil:
	case errors.Is(err, errTextLimit) && a.value+s.lim.value > s.lim.tag:
		return s.tooLarge("the attributes of <%s> are longer than %d bytes in all", s.name, s.lim.tag)
	case errors.Is(err, errTextLimit):
		return s.tooLarge("the value of attribute %s is longer than %d bytes", s.abuf[a.name:a.value], s.lim.value)
	default:
		return err
	}
	a.valueEnd = len(s.abuf)
	s.attrs = append(s.attrs, a)
	return nil
}

// attrChars reads an attribute value up to its closing quote q into text.
func (s *xmlScanner) attrChars(q byte) error {
	for {
		if !s.ensure(1) {
			return s.ended("inside an attribute value")
		}
		b := s.buf[s.pos:s.end]
		i := 0
		for i < len(b) && b[i] != q && b[i] >= 0x20 && b[i] != '<' && b[i] != '&' && b[i] < 0x80 {
			i++
		}
		if err := s.appendText(b[:i]); err != nil {
			return err
		}
		s.pos += i
		if i == len(b) {
			continue
		}
		switch c := b[i]; {
		case c == q:
			s.pos++
			return nil
		case c == '<':
			return s.syntax("'<' in an attribute value")
		case c == '&':
			if err := s.entity(true); err != nil {
				return err
			}
		case c == '\t' || c == '\n' || c == '\r':
			// Attribute-value normalisation: white space becomes a
			// space; CR LF is one.
			s.pos++
			if c == '\r' && s.ensure(1) && s.buf[s.pos] == '\n' {
				s.pos++
			}
			if err := s.appendText([]byte{' '}); err != nil {
				return err
			}
		case c < 0x20:
			return s.syntax("the control character U+%04X is not allowed in XML", c)
		default: // not ASCII
			s.ensure(utf8.UTFMax)
			r, n := utf8.DecodeRune(s.buf[s.pos:s.end])
			if r == utf8.RuneError && n <= 1 || r == 0xFFFE || r == 0xFFFF {
				if s.rerr != nil {
					return s.readError()
				}
				return s.syntax("invalid UTF-8 or a character XML does not allow")
			}
			if err := s.appendText(s.buf[s.pos : s.pos+n]); err != nil {
				return err
			}
			s.pos += n
		}
	}
}

// uniqueAttrs refuses a tag that has an attribute twice.
func (s *xmlScanner) uniqueAttrs() error {
	name := func(a xmlAttr) []byte { return s.abuf[a.name:a.value] }
	if len(s.attrs) <= 16 {
		for i := 1; i < len(s.attrs); i++ {
			for j := 0; j < i; j++ {
				if bytes.Equal(name(s.attrs[i]), name(s.attrs[j])) {
					return s.syntax("attribute %s twice on <%s>", name(s.attrs[i]), s.name)
				}
			}
		}
		return nil
	}
	seen := make(map[string]bool, len(s.attrs))
	for _, a := range s.attrs {
		if seen[string(name(a))] {
			return s.syntax("attribute %s twice on <%s>", name(a), s.name)
		}
		seen[string(name(a))] = true
	}
	return nil
}

// attrValue is the value of the current tag's attribute with the local
// name local and no prefix; ok is false when it has none.
func (s *xmlScanner) attrValue(local string) (v []byte, ok bool) {
	for _, a := range s.attrs {
		if a.local == a.name && string(s.abuf[a.local:a.value]) == local {
			return s.abuf[a.value:a.valueEnd], true
		}
	}
	return nil, false
}

// attrPrefixed is the value of the current tag's attribute whose local
// name is local and that has a prefix (r:id).
func (s *xmlScanner) attrPrefixed(local string) (v []byte, ok bool) {
	for _, a := range s.attrs {
		if a.local != a.name && string(s.abuf[a.local:a.value]) == local {
			return s.abuf[a.value:a.valueEnd], true
		}
	}
	return nil, false
}

// endTag reads </name>, which must close the open element.
func (s *xmlScanner) endTag() error {
	s.pos += 2 // </
	var err error
	if s.name, err = s.readName(s.name[:0]); err != nil {
		return err
	}
	s.skipSpace()
	if !s.ensure(1) {
		return s.ended("inside a tag")
	}
	if s.buf[s.pos] != '>' {
		return s.syntax("a malformed end tag </%s", s.name)
	}
	s.pos++
	if len(s.stackEnd) == 0 {
		return s.syntax("</%s> closes no element", s.name)
	}
	if !bytes.Equal(s.name, s.top()) {
		return s.syntax("</%s> closes <%s>", s.name, s.top())
	}
	s.local = s.name
	if i := bytes.IndexByte(s.name, ':'); i >= 0 {
		s.local = s.name[i+1:]
	}
	s.pop()
	return nil
}

// bang reads a comment or a CDATA section, and refuses a DTD.
func (s *xmlScanner) bang() error {
	switch {
	case s.has("<!--"):
		s.pos += 4
		for {
			c, err := s.chars(&commentStop, false)
			if err != nil {
				return err
			}
			if c == 0 {
				return s.ended("inside a comment")
			}
			if s.has("-->") {
				s.pos += 3
				return nil
			}
			if s.has("--") {
				return s.syntax("'--' inside a comment")
			}
			s.pos++
		}
	case s.has("<![CDATA["):
		if len(s.stackEnd) == 0 {
			return s.syntax("a CDATA section outside the root element")
		}
		s.pos += 9
		for {
			c, err := s.chars(&cdataStop, s.keep)
			if err != nil {
				return err
			}
			if c == 0 {
				return s.ended("inside a CDATA section")
			}
			if s.has("]]>") {
				s.pos += 3
				return nil
			}
			s.pos++
			if s.keep {
				if err := s.appendText([]byte{']'}); err != nil {
					return err
				}
			}
		}
	case s.has("<!DOCTYPE"), s.has("<!ENTITY"):
		mark := "DOCTYPE"
		if s.buf[s.pos+2] == 'E' {
			mark = "ENTITY"
		}
		return &scanError{kind: ErrDTD, off: s.offset(), msg: "it has <!" + mark}
	}
	return s.syntax("a malformed '<!'")
}

// procInst reads a processing instruction. An XML declaration may only
// open the part, and is read there (see declaration).
func (s *xmlScanner) procInst() error {
	s.pos += 2 // <?
	at := s.offset()
	target, err := s.readName(nil)
	if err != nil {
		return err
	}
	if len(target) == 3 && (target[0]|0x20) == 'x' && (target[1]|0x20) == 'm' && (target[2]|0x20) == 'l' {
		return &scanError{kind: ErrDamaged, off: at, msg: "an XML declaration that does not open the part"}
	}
	if !s.has("?>") && !s.skipSpace() {
		return s.syntax("a malformed processing instruction")
	}
	for {
		c, err := s.chars(&piStop, false)
		if err != nil {
			return err
		}
		if c == 0 {
			return s.ended("inside a processing instruction")
		}
		if s.has("?>") {
			s.pos += 2
			return nil
		}
		s.pos++
	}
}

// declaration reads <?xml ...?>, which must say nothing but UTF-8 (or
// UTF-16 when the part was converted from it).
func (s *xmlScanner) declaration() error {
	s.pos += 5
	var decl []byte
	for {
		if !s.ensure(2) {
			return s.ended("inside the XML declaration")
		}
		if s.buf[s.pos] == '?' && s.buf[s.pos+1] == '>' {
			s.pos += 2
			break
		}
		if len(decl) > 256 || s.buf[s.pos] == '<' {
			return s.syntax("a malformed XML declaration")
		}
		decl = append(decl, s.buf[s.pos])
		s.pos++
	}
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return s.syntax("a malformed XML declaration")
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) < 2 || rest[0] != '"' && rest[0] != '\'' {
		return s.syntax("a malformed XML declaration")
	}
	end := bytes.IndexByte(rest[1:], rest[0])
	if end < 0 {
		return s.syntax("a malformed XML declaration")
	}
	enc := string(bytes.ToLower(rest[1 : 1+end]))
	switch {
	case enc == "utf-8" || enc == "utf8" || enc == "us-ascii" || enc == "ascii":
		if !s.utf16 {
			return nil
		}
	case enc == "utf-16" || enc == "utf-16le" || enc == "utf-16be":
		if s.utf16 {
			return nil
		}
	}
	return &scanError{kind: ErrUnsupported, off: 0, msg: fmt.Sprintf("the part says it is in the character encoding %q, which annosheet does not read (Office Open XML uses UTF-8 or UTF-16)", rest[1:1+end])}
}
