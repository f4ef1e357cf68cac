package templates

import "testing"

// TestHashAndSpanSource: the hash is of the source's exact text; a
// context column is a span source when a span question copies from it.
func TestHashAndSpanSource(t *testing.T) {
	t.Parallel()
	a := &Template{Source: []byte("name: x\n")}
	b := &Template{Source: []byte("name: x \n")}
	if a.Hash() == b.Hash() || len(a.Hash()) != 64 || a.Hash() != (&Template{Source: []byte("name: x\n")}).Hash() {
		t.Errorf("hashes %s and %s", a.Hash(), b.Hash())
	}
	tp := &Template{Questions: []Question{{Name: "s", Type: TypeSpan, Field: "answer"}, {Name: "c", Type: TypeChoice, Field: "question"}}}
	if !tp.SpanSource(&Context{Name: "answer"}) || tp.SpanSource(&Context{Name: "question"}) || tp.SpanSource(nil) {
		t.Error("span sources: want answer only")
	}
}
