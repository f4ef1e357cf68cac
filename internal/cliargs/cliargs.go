// Package cliargs lets a urfave/cli command take its flags after its
// arguments, as users type them ("pull my-study/ --out a.jsonl"), and
// refuses a flag that lacks its value wherever it stands, rather than
// taking the next word for it.
//
//	args, err := cliargs.Interspersed(app.Commands, os.Args, nil)
//	err = app.RunContext(ctx, args)
package cliargs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/annosheet/annosheet/internal/editdistance"
	"github.com/urfave/cli/v2"
)

// ErrUsage is wrapped by the error of a flag that lacks its value.
var ErrUsage = errors.New("usage")

// usageError is a command line's mistake, said as its cause says it.
type usageError struct{ err error }

func (e usageError) Error() string   { return e.err.Error() }
func (e usageError) Unwrap() []error { return []error{e.err, ErrUsage} }

// Usagef is a mistake in the command line (ErrUsage), said as fmt.Errorf
// says it.
func Usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Usage marks err as a mistake in the command line (ErrUsage), said as
// err says it.
func Usage(err error) error { return usageError{err} }

// Interspersed moves a command's flags before its arguments, so that
// "pull my-study/ --out a.jsonl" works as users expect: urfave/cli v2, like
// Go's flag package, stops reading flags at the first argument. Flags that
// take a value keep it; "--" ends the flags as usual.
//
// A flag that takes a value but lacks one is a usage error (ErrUsage),
// wherever it
// stands: at the end ("pull my-study/ --out"), before "--", or before another
// flag of the command ("--out --strict"). Otherwise urfave would take the
// next word as the value and write a file named "--" or "--strict". A value
// that starts with '-' is read only in the --flag=value form.
//
// An empty value (--out=) is a slip too, as in "--out=$OUT" with OUT
// unset, except for the flags emptyOK names, whose empty value means
// something.
func Interspersed(cmds []*cli.Command, args []string, emptyOK map[string]bool) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	out := []string{args[0]}
	var flags []cli.Flag
	i := 1
	// The command path: leading words that name (sub)commands.
	for ; i < len(args); i++ {
		c := findCommand(cmds, args[i])
		if c == nil {
			break
		}
		out = append(out, args[i])
		cmds, flags = c.Subcommands, c.Flags
	}
	if len(out) == 1 {
		return args, nil // no command
	}
	byName := map[string]cli.Flag{}
	for _, f := range flags {
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	isFlag := func(a string) bool {
		if !strings.HasPrefix(a, "-") {
			return false
		}
		name, _, _ := strings.Cut(flagName(a), "=")
		_, known := byName[name]
		return known || name == "help" || name == "h"
	}
	var (
		opts, rest []string
		help       bool
		err        error // the first flag missing its value
	)
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) == 1 {
			rest = append(rest, a)
			continue
		}
		opts = append(opts, a)
		if a == "--help" || a == "-h" {
			help = true
		}
		name, value, hasValue := strings.Cut(flagName(a), "=")
		f, ok := byName[name]
		if !ok || !takesValue(f) || err != nil {
			// urfave reports unknown flags; bools take no word; after a
			// slip only a help flag still counts.
			continue
		}
		typed, _, _ := strings.Cut(a, "=") // the flag as the user wrote it
		needs := fmt.Sprintf("flag %s needs a value", typed)
		if p := placeholder(f); p != "" {
			needs += " (" + p + ")"
		}
		switch {
		case hasValue:
			if value == "" && !emptyOK[f.Names()[0]] {
				err = Usagef("%s, got an empty one", needs)
			}
		case i+1 == len(args) || args[i+1] == "--":
			err = Usagef("%s", needs)
		case isFlag(args[i+1]):
			err = Usagef("%s, got the flag %s", needs, args[i+1])
		case strings.HasPrefix(args[i+1], "-") && len(args[i+1]) > 1:
			err = Usagef("%s, got %s; a value that starts with '-' goes as %s=%s", needs, args[i+1], a, args[i+1])
		default:
			i++
			opts = append(opts, args[i])
		}
	}
	if help {
		// Help is about the command, not its arguments (which the help
		// action would take for a topic), and wins over a slip in them.
		return append(out, "--help"), nil
	}
	if err != nil {
		return nil, err
	}
	out = append(out, opts...)
	if len(rest) > 0 {
		out = append(out, "--")
		out = append(out, rest...)
	}
	return out, nil
}

// flagName strips the one or two dashes that start a flag, as Go's flag
// package does: "--out=a" gives "out=a".
func flagName(a string) string {
	if strings.HasPrefix(a, "--") {
		return a[2:]
	}
	return a[1:]
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// placeholder is the name a flag's usage gives its value in backquotes, as
// the help shows it: "FILE.jsonl" for pull's --out.
func placeholder(f cli.Flag) string {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	_, p, found := strings.Cut(d.GetUsage(), "`")
	if !found {
		return ""
	}
	p, _, found = strings.Cut(p, "`")
	if !found {
		return ""
	}
	return p
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	// The flag package says this in words only: its text is all there
	// is to know the flag by.
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok && c != nil {
		flags := c.App.Flags
		if c.Command != nil && c.Command.Name != "" {
			flags = c.Command.Flags
		}
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		return Usagef("unknown flag --%s%s", strings.TrimPrefix(name, "-"), DidYouMean(strings.TrimPrefix(name, "-"), names, "--"))
	}
	return Usage(err)
}

// DidYouMean is "; did you mean X?" for the closest of names to a
// mistyped word, each written after prefix; "" when none is close.
func DidYouMean(word string, names []string, prefix string) string {
	close := editdistance.Closest(word, names)
	if len(close) == 0 {
		return ""
	}
	for i := range close {
		close[i] = prefix + close[i]
	}
	return "; did you mean " + strings.Join(close, " or ") + "?"
}

// SetUsageErrors makes flag mistakes in the app and every command usage
// errors, an unknown flag named with the flags most likely meant.
func SetUsageErrors(app *cli.App) {
	app.OnUsageError = onUsageError
	setUsageErrors(app.Commands)
}

func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		setUsageErrors(c.Subcommands)
	}
}

// Group is the action of a command that only groups others
// (templates, auth): its help, or a usage error naming the subcommand it
// does not have, and the one most likely meant.
func Group(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowSubcommandHelp(c)
	}
	var names []string
	for _, s := range c.Command.Subcommands {
		names = append(names, s.Names()...)
	}
	return Usagef("%s has no command %q%s", c.Command.FullName(), c.Args().First(), DidYouMean(c.Args().First(), names, ""))
}

// NoArgs fails when a command that takes no arguments got some.
func NoArgs(c *cli.Context) error {
	if c.Args().Present() {
		return Usagef("%s takes no arguments, got %q", c.Command.FullName(), c.Args().First())
	}
	return nil
}
