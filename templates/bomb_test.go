package templates_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/bombs"
)

// laughs is a template whose export constant is nine levels of aliases,
// each repeating the one before ten times: a billion values from a
// kilobyte of text.
func laughs(t *testing.T) []byte {
	t.Helper()
	b, err := bombs.LegalGapsLaughs()
	if err != nil {
		t.Fatal(err)
	}
	return b
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
