package main

import (
	"embed"
	"strings"
)

// The long help of each command is prose, kept as text in help/ where it
// reads and is edited as the user sees it; the flags' one-line usages stay
// beside the flags.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of a command, from help/NAME.txt.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("no help text for " + name) // a file of the build, checked by the tests
	}
	return strings.TrimSuffix(string(b), "\n")
}
