package study_test

import (
	"errors"
	"testing"

	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
)

// TestPrepareNativeRefuses: the native file is refused, before any input
// is read, without what it is made from; each refusal is its sentinel,
// with no flag of the command line in it.
func TestPrepareNativeRefuses(t *testing.T) {
	t.Parallel()
	tmpl := func(name string) *templates.Template {
		tp, err := templates.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		return tp
	}
	for _, c := range []struct {
		name string
		l    *records.Loaded
		opt  study.NativeOptions
		want error
	}{
		{"no manifest and no inputs", &records.Loaded{Template: tmpl("legal-gaps")}, study.NativeOptions{}, study.ErrNoInputs},
		{"anonymised names without the key", &records.Loaded{Template: tmpl("factgenie-meta-eval")}, study.NativeOptions{Inputs: []string{"outputs"}}, study.ErrNeedsManifest},
	} {
		_, err := study.PrepareNative(c.l, nil, c.opt)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
		if err != nil && containsFlag(err.Error()) {
			t.Errorf("%s: %q names a flag", c.name, err)
		}
	}
}

func containsFlag(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '-' && s[i+1] == '-' && s[i+2] >= 'a' && s[i+2] <= 'z' {
			return true
		}
	}
	return false
}
