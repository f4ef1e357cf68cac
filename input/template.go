package input

import (
	"fmt"
	"os"
	"strings"

	"github.com/annosheet/annosheet/templates"
)

// Template loads a template given as a built-in name or a file path. A
// built-in name always means the built-in (write ./NAME for a file of that
// name); anything else is read as a file.
func Template(nameOrFile string, params map[string]string) (*templates.Template, error) {
	if _, ok := templates.BuiltinSource(nameOrFile); ok {
		return templates.BuiltinWithParams(nameOrFile, params)
	}
	if _, err := os.Stat(nameOrFile); err != nil && !strings.ContainsAny(nameOrFile, `/\.`) {
		return nil, fmt.Errorf("%w %q: not a built-in (%s) and no such file", templates.ErrUnknown, nameOrFile, strings.Join(templates.BuiltinNames(), ", "))
	}
	return TemplateFile(nameOrFile, params)
}

// TemplateFile reads and checks the template in the named file, with values
// for its parameters (nil keeps the defaults). The file's size is checked
// before it is read, so a huge file is refused without reading it.
func TemplateFile(name string, params map[string]string) (*templates.Template, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	if st.Size() > templates.MaxSize {
		return nil, &templates.Error{File: name, Msg: fmt.Sprintf("file is %d bytes; templates are limited to %d", st.Size(), templates.MaxSize)}
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	return templates.LoadWithParams(name, src, params)
}
