package templates_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// laughs is a template whose export constant is nine levels of aliases,
// each repeating the one before ten times: a billion values from a
// kilobyte of text.
func laughs(t *testing.T) []byte {
	t.Helper()
	src, ok := templates.BuiltinSource("legal-gaps")
	if !ok {
		t.Fatal("no built-in legal-gaps")
	}
	var b strings.Builder
	b.WriteString("x-laughs:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("  l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	text := strings.Replace(string(src), "    labels: {value: gaps, as: ints}", "    labels: {value: gaps, as: ints}\n    laughs: *l9", 1)
	if text == string(src) {
		t.Fatal("the legal-gaps export section changed; update the test")
	}
	return []byte(b.String() + text)
}

// TestAliasBomb: aliases that repeat aliases in an export constant stop
// with an error naming the budget, in bounded memory.
func TestAliasBomb(t *testing.T) {
	src := laughs(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := templates.Load("bomb.yaml", src)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "expands to too many values") {
		t.Fatalf("Load: %v", err)
	}
	if n := strings.Count(err.Error(), "expands to too many values"); n != 1 {
		t.Errorf("the budget is reported %d times", n)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("Load allocated %d MB on a %d-byte template", grew>>20, len(src))
	}
}
