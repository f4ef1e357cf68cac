package templates

import (
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// ErrUnknown is returned for a template name that is not a built-in (and,
// where a file may be given instead, not a file either).
var ErrUnknown = errors.New("unknown template")

// BuiltinNames lists the built-in templates, sorted.
func BuiltinNames() []string {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// BuiltinSource returns the commented YAML of a built-in template: the text
// `templates show` prints and a user can copy.
func BuiltinSource(name string) ([]byte, bool) {
	b, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	return b, err == nil
}

// Builtin loads a built-in template.
func Builtin(name string) (*Template, error) {
	return BuiltinWithParams(name, nil)
}

// BuiltinWithParams loads a built-in template with parameter values.
func BuiltinWithParams(name string, params map[string]string) (*Template, error) {
	src, ok := BuiltinSource(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (built-in templates: %s)", ErrUnknown, name, strings.Join(BuiltinNames(), ", "))
	}
	return LoadWithParams("builtin:"+name, src, params)
}
