package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags before its arguments, so that
// "pull study/ --out a.jsonl" works as users expect: urfave/cli v2, like
// Go's flag package, stops reading flags at the first argument. Flags that
// take a value keep it; "--" ends the flags as usual.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
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
		return args // no command
	}
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var opts, rest []string
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			opts = append(opts, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				opts = append(opts, args[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	for _, o := range opts {
		if o == "--help" || o == "-h" {
			// Help is about the command, not its arguments (which the
			// help action would take for a topic).
			return append(out, o)
		}
	}
	out = append(out, opts...)
	if len(rest) > 0 {
		out = append(out, "--")
		out = append(out, rest...)
	}
	return out
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
