// Package builtin gives tests the built-in templates, failing the test
// that cannot load one.
package builtin

import (
	"testing"

	"github.com/annosheet/annosheet/templates"
)

// Template is the built-in template name.
func Template(t testing.TB, name string) *templates.Template {
	t.Helper()
	tp, err := templates.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}
