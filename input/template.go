package input

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/annosheet/annosheet/internal/boundedread"
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
// for its parameters (nil keeps the defaults). At most templates.MaxSize
// bytes are read: a larger file, or one that grows past it while it is
// read, is refused as a template error; a named pipe is never waited on.
func TemplateFile(name string, params map[string]string) (*templates.Template, error) {
	src, err := boundedread.ReadFile(name, templates.MaxSize, "a template")
	if errors.Is(err, boundedread.ErrTooLarge) {
		return nil, &templates.Error{File: name, Msg: fmt.Sprintf("larger than the %s a template may be", boundedread.Size(templates.MaxSize))}
	}
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	return templates.LoadWithParams(name, src, params)
}
