package cliargs

import (
	"errors"
	"io"
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

// TestUsageErrors: an unknown flag, a group's unknown subcommand and
// arguments where none are taken are usage errors that name the word,
// and the closest names when one is close.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	newApp := func() *cli.App {
		app := &cli.App{Name: "prog", HideHelpCommand: true, ExitErrHandler: func(*cli.Context, error) {}, Writer: io.Discard, ErrWriter: io.Discard,
			Commands: []*cli.Command{
				{Name: "get", Flags: []cli.Flag{&cli.StringFlag{Name: "output"}}, Action: NoArgs},
				{Name: "auth", Action: Group, Subcommands: []*cli.Command{{Name: "login", Action: func(*cli.Context) error { return nil }}}},
			}}
		SetUsageErrors(app)
		return app
	}
	for _, c := range []struct{ args, want string }{
		{"get --outptu x", "unknown flag --outptu; did you mean --output?"},
		{"get extra", `get takes no arguments, got "extra"`},
		{"auth logn", `auth has no command "logn"; did you mean login?`},
		{"auth whoami", `auth has no command "whoami"`},
	} {
		err := newApp().Run(append([]string{"prog"}, strings.Fields(c.args)...))
		if !errors.Is(err, ErrUsage) || err.Error() != c.want {
			t.Errorf("%s: %v, want ErrUsage %q", c.args, err, c.want)
		}
	}
	if got := DidYouMean("stauts", []string{"status", "agree"}, ""); got != "; did you mean status?" {
		t.Errorf("DidYouMean: %q", got)
	}
}
