package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/annosheet/annosheet/internal/words"
	"github.com/annosheet/annosheet/study"
)

// ExportAsked names, in the caller's words, the options that have an
// export keep what it would otherwise refuse (a command line gives its
// flags): the sentences that say what was kept name them.
type ExportAsked struct {
	AllowProblems, AllowUnresolved, InputChanged string
}

// NativeWarnings writes the warnings of a native file that study.Export
// prepared, a line each: the inputs given whose content is not what the
// workbooks were made from, the gold units exported without the values
// nobody decided, and what the selection warns of.
func NativeWarnings(w io.Writer, n *study.Native, asked ExportAsked) {
	if n == nil {
		return
	}
	if len(n.Changed) > 0 {
		fmt.Fprintf(w, "warning: %s: not the content the workbooks were generated from; exported with it as %s says (offsets may not match)\n", strings.Join(n.Changed, ", "), asked.InputChanged)
	}
	if n.Selection != nil {
		for _, u := range n.Selection.Unresolved {
			fmt.Fprintln(w, "warning: "+u+": exported without it ("+asked.AllowUnresolved+")")
		}
	}
	for _, s := range n.Warnings {
		fmt.Fprintln(w, "warning: "+s)
	}
}

// LeftOut says what an export left out, and what it kept although it
// has errors or once of several identical copies, as a sentence's end
// ("; left out 2 partial units; …"); "" when there is nothing to say.
func LeftOut(l study.NativeLeftOut, asked ExportAsked) string {
	var parts []string
	total := 0
	for _, c := range []struct {
		n    int
		what string
	}{{l.Partial, "partial"}, {l.Empty, "empty"}, {l.Missing, "missing"}, {l.Unreadable, "unreadable"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
			total += c.n
		}
	}
	out := ""
	if len(parts) > 0 {
		out = "; left out " + strings.Join(parts, ", ") + " " + words.Noun(total, "unit")
	}
	if l.WithErrors > 0 {
		out += fmt.Sprintf("; %s with errors kept (%s)", words.Count(l.WithErrors, "unit"), asked.AllowProblems)
	}
	if l.Duplicates > 0 {
		out += fmt.Sprintf("; %s repeated identically, each kept once", words.Count(l.Duplicates, "record"))
	}
	return out
}

// WroteNative writes the line of a native file written: its path and
// how many records it holds.
func WroteNative(w io.Writer, path string, records int) {
	fmt.Fprintf(w, "wrote %s: %s\n", path, words.Count(records, "record"))
}

// WroteTable writes the line of an analysis table written: its path,
// shape (long or wide), rows and columns.
func WroteTable(w io.Writer, path, shape string, rows, columns int) {
	fmt.Fprintf(w, "wrote %s: the %s table, %s and %s\n", path, shape, words.Count(rows, "row"), words.Count(columns, "column"))
}
