package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// ErrUnknown is returned for a template name that is neither a built-in nor
// a file.
var ErrUnknown = errors.New("unknown template")

// BuiltinNames lists the built-in templates, sorted.
func BuiltinNames() []string {
	entries, err := fs.ReadDir(builtinFS, "builtin")
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

// Resolve loads a template given as a built-in name or a file path. A
// built-in name always means the built-in (write ./NAME for a file of that
// name); anything else is read as a file.
func Resolve(nameOrFile string, params map[string]string) (*Template, error) {
	if _, ok := BuiltinSource(nameOrFile); ok {
		return BuiltinWithParams(nameOrFile, params)
	}
	if _, err := os.Stat(nameOrFile); err != nil && !strings.ContainsAny(nameOrFile, `/\.`) {
		return nil, fmt.Errorf("%w %q: not a built-in (%s) and no such file", ErrUnknown, nameOrFile, strings.Join(BuiltinNames(), ", "))
	}
	return LoadFileWithParams(nameOrFile, params)
}

// LoadFileWithParams is LoadFile with values for the template's parameters.
func LoadFileWithParams(name string, params map[string]string) (*Template, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	if st.Size() > MaxSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file is %d bytes; templates are limited to %d", st.Size(), MaxSize)}
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	return LoadWithParams(name, src, params)
}
