package main

import (
	"strconv"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/urfave/cli/v2"
)

// The range checks of numeric flags, shared by every command that has
// them (a confidence level, a number of resamples or permutations, a
// bound on what is listed): a value out of range is a usage error that
// says the range, never a computation that runs for hours or a level
// that gives no interval.

// checkLevel checks a flag that takes a confidence level, when it is
// given: strictly between 0 and 1 (NaN is not).
func checkLevel(c *cli.Context, name string) error {
	if !c.IsSet(name) {
		return nil
	}
	if v := c.Float64(name); !(v > 0 && v < 1) {
		return cliargs.Usagef("--%s %v: give a level between 0 and 1, both excluded, such as 0.95", name, v)
	}
	return nil
}

// checkCount checks a flag that takes a whole number, given or by
// default: from lo to hi.
func checkCount(c *cli.Context, name string, lo, hi int) error {
	if v := c.Int(name); v < lo || v > hi {
		return cliargs.Usagef("--%s %d: give a whole number from %s to %s", name, v, thousands(lo), thousands(hi))
	}
	return nil
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
