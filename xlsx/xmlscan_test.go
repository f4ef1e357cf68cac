package xlsx

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// scanDump reads a whole document, keeping all text, and writes it back
// as tags and text (attributes in order, values decoded).
func scanDump(r io.Reader, lim scanLimits) (string, error) {
	s := newScanner(r, 1<<20, lim)
	s.textLimit = 1 << 20
	var b strings.Builder
	for {
		s.keep, s.text = true, s.text[:0]
		k, err := s.next()
		b.Write(s.text)
		if err != nil {
			return b.String(), err
		}
		switch k {
		case tokEOF:
			return b.String(), nil
		case tokStart:
			fmt.Fprintf(&b, "<%s", s.local)
			for _, a := range s.attrs {
				fmt.Fprintf(&b, " %s=%q", s.abuf[a.local:a.value], s.abuf[a.value:a.valueEnd])
			}
			b.WriteString(">")
		case tokEnd:
			fmt.Fprintf(&b, "</%s>", s.local)
		}
	}
}

func TestScanner(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`<a>x &amp; y &lt; &gt; &quot; &apos; &#65;&#x42;&#x1F600;</a>`, `<a>x & y < > " ' AB😀</a>`},
		{`<a><![CDATA[<b>&amp;]]]]></a>`, `<a><b>&amp;]]</a>`},
		{`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" + `<!-- c --><a><?pi x?>t<!--c-->u</a><!-- end -->` + "\n",
			`<a>tu</a>`},
		{"<a>x\r\ny\rz\r</a>", "<a>x\ny\nz\n</a>"},
		{"<a b=\"x&#10;y\tz&amp;\r\nw\" c='\"'/>", "<a b=\"x\\ny z& w\" c=\"\\\"\"></a>"},
		{`<a><b/><c ></c ></a >`, `<a><b></b><c></c></a>`},
		{`<x:a xmlns:x="u"><x:b r:id="1" n="2"/></x:a>`, `<a x="u"><b id="1" n="2"></b></a>`},
		{"\xEF\xBB\xBF<a/>", "<a></a>"},
		{"<a>héllo 漢字 😀 \u0080</a>", "<a>héllo 漢字 😀 \u0080</a>"},
		{"<a>\t\n</a>", "<a>\t\n</a>"},
		{"<a b=\"é漢\"/>", "<a b=\"é漢\"></a>"},
		{"<?xml version='1.0' encoding='utf-8'?><a/>", "<a></a>"},
	} {
		// Whole, a byte at a time, and in odd pieces: the buffer's edges
		// must not matter.
		for name, r := range map[string]func() io.Reader{
			"whole":  func() io.Reader { return strings.NewReader(c.in) },
			"bytes":  func() io.Reader { return iotest.OneByteReader(strings.NewReader(c.in)) },
			"halves": func() io.Reader { return iotest.HalfReader(strings.NewReader(c.in)) },
		} {
			got, err := scanDump(r(), defaultScanLimits)
			if err != nil || got != c.want {
				t.Errorf("%s %q:\n got %q, %v\nwant %q", name, c.in, got, err, c.want)
			}
		}
	}
}

func TestScannerErrors(t *testing.T) {
	small := scanLimits{name: 8, attrs: 3, value: 10, tag: 24, depth: 4}
	for _, c := range []struct {
		in   string
		lim  scanLimits
		want error
		msg  string
	}{
		{"", defaultScanLimits, ErrDamaged, "before its root element"},
		{"  \n", defaultScanLimits, ErrDamaged, "before its root element"},
		{"<a>", defaultScanLimits, ErrDamaged, "ends inside element <a>"},
		{"<a><b>text", defaultScanLimits, ErrDamaged, "ends inside element <b>"},
		{"<a></b>", defaultScanLimits, ErrDamaged, "</b> closes <a>"},
		{"<a/><b/>", defaultScanLimits, ErrDamaged, "second root"},
		{"x<a/>", defaultScanLimits, ErrDamaged, "text before the root"},
		{"<a/>x", defaultScanLimits, ErrDamaged, "text after the root"},
		{"<a>&foo;</a>", defaultScanLimits, ErrDamaged, "undefined entity &foo;"},
		{"<a b='&foo;'/>", defaultScanLimits, ErrDamaged, "undefined entity &foo;"},
		{"<a>&amp</a>", defaultScanLimits, ErrDamaged, "malformed character reference"},
		{"<a>&#0;</a>", defaultScanLimits, ErrDamaged, "not a character XML allows"},
		{"<a>&#xD800;</a>", defaultScanLimits, ErrDamaged, "not a character XML allows"},
		{"<a>&#x110000;</a>", defaultScanLimits, ErrDamaged, "not a character XML allows"},
		{"<a>&#xZ;</a>", defaultScanLimits, ErrDamaged, "not a character XML allows"},
		{"<a>\x01</a>", defaultScanLimits, ErrDamaged, "U+0001"},
		{"<a b='\x02'/>", defaultScanLimits, ErrDamaged, "U+0002"},
		{"<a>\xff</a>", defaultScanLimits, ErrDamaged, "invalid UTF-8"},
		{"<a>ok\xe6\xbc</a>", defaultScanLimits, ErrDamaged, "invalid UTF-8"},
		{"<a>\xef\xbf\xbe</a>", defaultScanLimits, ErrDamaged, "invalid UTF-8"},
		{"<a b='\xff'/>", defaultScanLimits, ErrDamaged, "invalid UTF-8"},
		{`<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`, defaultScanLimits, ErrDTD, "<!DOCTYPE"},
		{`<a><!ENTITY x "y"></a>`, defaultScanLimits, ErrDTD, "<!ENTITY"},
		{`<a><!ELEMENT x ANY></a>`, defaultScanLimits, ErrDamaged, "malformed '<!'"},
		{`<![CDATA[x]]><a/>`, defaultScanLimits, ErrDamaged, "CDATA section outside"},
		{`<a b="1" b="2"/>`, defaultScanLimits, ErrDamaged, "attribute b twice"},
		{`<a b=1/>`, defaultScanLimits, ErrDamaged, "not quoted"},
		{`<a b/>`, defaultScanLimits, ErrDamaged, "has no value"},
		{`<a b="1"c="2"/>`, defaultScanLimits, ErrDamaged, "not separated"},
		{`<a b="<"/>`, defaultScanLimits, ErrDamaged, "'<' in an attribute value"},
		{`<a / >`, defaultScanLimits, ErrDamaged, "'/' not followed by '>'"},
		{`<a><!-- a -- b --></a>`, defaultScanLimits, ErrDamaged, "'--' inside a comment"},
		{`<a><!-- a </a>`, defaultScanLimits, ErrDamaged, "ends inside a comment"},
		{`<a><?xml version="1.0"?></a>`, defaultScanLimits, ErrDamaged, "XML declaration that does not open"},
		{` <?xml version="1.0"?><a/>`, defaultScanLimits, ErrDamaged, "XML declaration that does not open"},
		{`<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, defaultScanLimits, ErrUnsupported, `"ISO-8859-1"`},
		{`<?xml version="1.0" encoding="UTF-16"?><a/>`, defaultScanLimits, ErrUnsupported, `"UTF-16"`},
		{`<a><![CDATA[x</a>`, defaultScanLimits, ErrDamaged, "ends inside a CDATA section"},
		{`<a><?pi x</a>`, defaultScanLimits, ErrDamaged, "ends inside a processing instruction"},
		{`<a b="x`, defaultScanLimits, ErrDamaged, "ends inside an attribute value"},
		{`<a`, defaultScanLimits, ErrDamaged, "ends inside a tag"},
		{`<a></a`, defaultScanLimits, ErrDamaged, "ends inside a tag"},
		{`<1a/>`, defaultScanLimits, ErrDamaged, "cannot start with '1'"},
		{`</a>`, defaultScanLimits, ErrDamaged, "closes no element"},
		{`<abcdefghi/>`, small, ErrTooLarge, "name longer than 8 bytes"},
		{`<a b="" c="" d="" e=""/>`, small, ErrTooLarge, "more than 3 attributes"},
		{`<a b="12345678901"/>`, small, ErrTooLarge, "longer than 10 bytes"},
		{`<a b="1234567&amp;&amp;&amp;&amp;"/>`, small, ErrTooLarge, "longer than 10 bytes"},
		{`<a><a><a><a><a/></a></a></a></a>`, small, ErrTooLarge, "nested more than 4 deep"},
		{`<a b="1234567890" c="1234567890" d="12"/>`, small, ErrTooLarge, "attributes of <a> are longer than 24 bytes in all"},
		{`<a b="1234567890" c="123456789" abcdefgh=""/>`, small, ErrTooLarge, "attributes of <a> are longer than 24 bytes in all"},
	} {
		for name, r := range map[string]func() io.Reader{
			"whole": func() io.Reader { return strings.NewReader(c.in) },
			"bytes": func() io.Reader { return iotest.OneByteReader(strings.NewReader(c.in)) },
		} {
			_, err := scanDump(r(), c.lim)
			if !errors.Is(err, c.want) || err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s %q: %v; want %v saying %q", name, c.in, err, c.want, c.msg)
			}
		}
	}
}

// TestScannerReadError checks that a failing read (a bad checksum, say)
// is the error, and never reads as the end of the part.
func TestScannerReadError(t *testing.T) {
	bad := errors.New("checksum error")
	doc := "<a>" + strings.Repeat("<b>text</b>", 20000) + "</a>"
	for _, at := range []int{0, 1, 2, 3, 10, 100000, len(doc) - 1, len(doc)} {
		r := io.MultiReader(strings.NewReader(doc[:at]), iotest.ErrReader(bad))
		_, err := scanDump(r, defaultScanLimits)
		if !errors.Is(err, bad) || !errors.Is(err, ErrDamaged) {
			t.Errorf("cut at %d: %v; want the read error", at, err)
		}
	}
	// Kept text going past its limit says so.
	s := newScanner(strings.NewReader("<a>"+strings.Repeat("x", 100)+"</a>"), 0, defaultScanLimits)
	s.textLimit, s.keep = 50, true
	_, err := s.next()
	if err == nil {
		_, err = s.next()
	}
	if !errors.Is(err, ErrTooLarge) || !isTextLimit(err) {
		t.Errorf("text over the limit: %v", err)
	}
}

// TestChildren checks that children hands fn each child's start, skips
// the children fn leaves, whole or empty, and goes on after one fn reads
// to its end.
func TestChildren(t *testing.T) {
	doc := `<a><x:b n="1"><c>no</c>no</x:b><d>yes<c>no</c></d><e/><d/><b n="2"/></a>`
	for name, r := range map[string]func() io.Reader{
		"whole": func() io.Reader { return strings.NewReader(doc) },
		"bytes": func() io.Reader { return iotest.OneByteReader(strings.NewReader(doc)) },
	} {
		s := newScanner(r(), 0, defaultScanLimits)
		if err := rootIs(s, "a"); err != nil {
			t.Fatal(err)
		}
		var seen []string
		err := s.children(func(local []byte) error {
			n, _ := s.attrValue("n")
			seen = append(seen, string(local)+string(n))
			if string(local) == "d" {
				return readText(s)
			}
			return nil
		})
		if err == nil {
			err = s.finish()
		}
		if got := strings.Join(seen, " "); err != nil || got != "b1 d e d b2" || string(s.text) != "yes" {
			t.Errorf("%s: saw %q, text %q, %v", name, got, s.text, err)
		}
	}
	// fn's error is returned as it is; one in a child passed over is the
	// scanner's.
	stop := errors.New("stop")
	s := newScanner(strings.NewReader(`<a><b/><c/></a>`), 0, defaultScanLimits)
	calls := 0
	if err := rootIs(s, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.children(func([]byte) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("fn's error: %v after %d calls", err, calls)
	}
	s = newScanner(strings.NewReader(`<a><b><c></b></a>`), 0, defaultScanLimits)
	if err := rootIs(s, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.children(func([]byte) error { return nil }); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "</b> closes <c>") {
		t.Errorf("a damaged child: %v", err)
	}
}

// TestScannerLongText checks the scanner's fast way through long text: a
// byte that ends it, or that it must check, is found wherever it falls
// among the eight bytes read at once.
func TestScannerLongText(t *testing.T) {
	for _, c := range []struct{ mark, want, err string }{
		{"&amp;", "&", ""},
		{"<b/>", "<b></b>", ""},
		{"\n", "\n", ""},
		{"\t", "\t", ""},
		{"\r\n", "\n", ""},
		{"é", "é", ""},
		{"😀", "😀", ""},
		{"\x01", "", "the control character U+0001"},
		{"\x1F", "", "the control character U+001F"},
		{"\xC3", "", "invalid UTF-8"},
		{"\xEF\xBF\xBE", "", "invalid UTF-8"},
	} {
		for at := range 24 {
			text := strings.Repeat("x", at) + c.mark + strings.Repeat("y", 30)
			got, err := scanDump(strings.NewReader("<a>"+text+"</a>"), defaultScanLimits)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%q at %d: got %v, want %q", c.mark, at, err, c.err)
				}
				continue
			}
			want := "<a>" + strings.Repeat("x", at) + c.want + strings.Repeat("y", 30) + "</a>"
			if err != nil || got != want {
				t.Errorf("%q at %d: got %q, %v", c.mark, at, got, err)
			}
		}
	}
	for i := range 256 {
		x := uint64(0x4141414141414141)&^(0xFF<<(8*(i%8))) | uint64(i)<<(8*(i%8))
		if got, want := hasLess(x, 0x20) != 0, i < 0x20; got != want {
			t.Errorf("hasLess(%#x) = %v", x, got)
		}
		if got, want := hasZero(x^(lsb*'<')) != 0, i == '<'; got != want {
			t.Errorf("hasZero(%#x ^ '<') = %v", x, got)
		}
	}
}
