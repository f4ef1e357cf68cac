package benchdata

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// deflateRatio is how many times flate at level 6 shrinks about a
// megabyte of the kind's text, drawn as LegalInput draws it: fields of
// 400 to 1,200 characters from consecutive seeds.
func deflateRatio(t *testing.T, kind TextKind) float64 {
	t.Helper()
	var src bytes.Buffer
	for i := 0; src.Len() < 1<<20; i++ {
		src.WriteString(TextOf(kind, i, []int{1200, 400, 400, 500, 500}[i%5]))
	}
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(src.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return float64(src.Len()) / float64(out.Len())
}

// TestProseCompressesLikeEnglish pins what the prose is for: it deflates
// as real English does (about 2.6 to 3.2 times), where the repetitive
// text deflates more than 30 times.
func TestProseCompressesLikeEnglish(t *testing.T) {
	t.Parallel()
	if r := deflateRatio(t, Prose); r < 2.6 || r > 3.2 {
		t.Errorf("prose deflates %.2f times, want 2.6 to 3.2", r)
	} else {
		t.Logf("prose deflates %.2f times", r)
	}
	if r := deflateRatio(t, Repetitive); r < 20 {
		t.Errorf("repetitive text deflates %.2f times, want more than 20", r)
	}
	if n := len(vocab.words); n < 2000 {
		t.Errorf("a vocabulary of %d word forms, want some thousands", n)
	}
}

// TestProseDeterministic checks that a seed gives the same text every
// time and everywhere (its hash is pinned), and the text's form.
func TestProseDeterministic(t *testing.T) {
	t.Parallel()
	a, b := ProseText(42, 5000), ProseText(42, 5000)
	if a != b {
		t.Fatal("the same seed gave two texts")
	}
	if ProseText(43, 5000) == a {
		t.Error("two seeds gave the same text")
	}
	// Pinned: a change here changes every benchmark's input, and the
	// figures measured on it.
	const want = "217ab215934cfde0da597a477edd0327a8957c15d556ec3ed3b7284cce78cfad"
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte(a))); got != want {
		t.Errorf("ProseText(42, 5000) has hash %s, want %s; it begins %q", got, want, a[:80])
	}
	if len(a) < 5000 || len(a) > 5000+400 {
		t.Errorf("%d bytes for 5000 asked", len(a))
	}
	if !utf8.ValidString(a) || !strings.HasSuffix(a, ".") || a[0] < 'A' || a[0] > 'Z' {
		t.Errorf("not sentences: %q … %q", a[:40], a[len(a)-40:])
	}
	for _, s := range []string{", ", ". ", " v. "} {
		if !strings.Contains(a, s) {
			t.Errorf("no %q in %q", s, a)
		}
	}
}

func TestParseTextKind(t *testing.T) {
	t.Parallel()
	for _, k := range []TextKind{Prose, Repetitive} {
		got, err := ParseTextKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseTextKind(%q) = %v, %v", k, got, err)
		}
	}
	if _, err := ParseTextKind("lorem"); err == nil {
		t.Error("ParseTextKind(lorem) is no error")
	}
}
