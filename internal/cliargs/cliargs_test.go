package cliargs

import (
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestInterspersed: flags move before the arguments with their values; a
// flag without its value is ErrUsage, naming the flag and its
// placeholder, unless its empty value is allowed.
func TestInterspersed(t *testing.T) {
	t.Parallel()
	cmds := []*cli.Command{{Name: "get", Flags: []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE`"},
		&cli.StringFlag{Name: "note"},
		&cli.BoolFlag{Name: "quiet"},
	}}}
	for _, c := range []struct{ args, want string }{
		{"get a --out b c", "get --out b -- a c"},
		{"get a -o b --quiet", "get -o b --quiet -- a"},
		{"get a -- --out", "get -- a --out"},
		{"get a --note=", "get --note= -- a"},
		{"get a --out", "flag --out needs a value (FILE)"},
		{"get a --out --quiet", "flag --out needs a value (FILE), got the flag --quiet"},
		{"get a --out=", "flag --out needs a value (FILE), got an empty one"},
		{"get a --out -x", "flag --out needs a value (FILE), got -x; a value that starts with '-' goes as --out=-x"},
		{"get a --out --help", "get --help"},
		{"other --out", "other --out"},
	} {
		got, err := Interspersed(cmds, append([]string{"prog"}, strings.Fields(c.args)...), map[string]bool{"note": true})
		line := strings.Join(got[min(1, len(got)):], " ")
		if err != nil {
			if !errors.Is(err, ErrUsage) {
				t.Errorf("%s: %v is not ErrUsage", c.args, err)
			}
			line = err.Error()
		}
		if line != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.args, line, c.want)
		}
	}
}
