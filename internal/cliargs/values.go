package cliargs

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/internal/words"
)

// The values of flags every command reads alike: lists given repeated or
// comma-separated, NAME=VALUE pairs, and numbers in a range. A value out
// of its range is a usage error that says the range, never a computation
// that runs for hours or a level that gives no interval.

// List reads a flag's repeated and comma-separated values, trimmed, the
// empty ones left out.
func List(values []string) []string {
	var out []string
	for _, s := range values {
		for _, e := range strings.Split(s, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// Params reads the NAME=VALUE pairs of the flag name (a later pair of a
// name wins).
func Params(c *cli.Context, name string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range c.StringSlice(name) {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, Usagef("--%s %q: expected NAME=VALUE", name, p)
		}
		out[k] = v
	}
	return out, nil
}

// Level checks a flag that takes a confidence level, when it is given:
// strictly between 0 and 1 (NaN is not).
func Level(c *cli.Context, name string) error {
	if !c.IsSet(name) {
		return nil
	}
	if v := c.Float64(name); !(v > 0 && v < 1) {
		return Usagef("--%s %v: give a level between 0 and 1, both excluded, such as 0.95", name, v)
	}
	return nil
}

// Count checks a flag that takes a whole number, given or by default:
// from lo to hi.
func Count(c *cli.Context, name string, lo, hi int) error {
	if v := c.Int(name); v < lo || v > hi {
		return Usagef("--%s %d: give a whole number from %s to %s", name, v, words.Thousands(lo), words.Thousands(hi))
	}
	return nil
}

// OneOf is the one of the boolean flags names that is given, or "" for
// none; two or more given are a usage error.
func OneOf(c *cli.Context, names ...string) (string, error) {
	given := ""
	for _, n := range names {
		if !c.Bool(n) {
			continue
		}
		if given != "" {
			if len(names) == 2 {
				return "", Usagef("give --%s or --%s, not both", names[0], names[1])
			}
			flags := "--" + strings.Join(names[:len(names)-1], ", --")
			return "", Usagef("give one of %s and --%s", flags, names[len(names)-1])
		}
		given = n
	}
	return given, nil
}
