package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped flag, command or annotator ID is refused
// with the one most likely meant.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	recs := legalRecords(t, dir, "recs.jsonl", "u1 ak 1", "u1 bb 2")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pull", dir, "--output", "x.jsonl"}, exitUsage, "annosheet: unknown flag --output; did you mean --out? (see --help)"},
		{[]string{"generate", "--templat", "legal-gaps"}, exitUsage, "annosheet: unknown flag --templat; did you mean --template? (see --help)"},
		{[]string{"genrate"}, exitUsage, `annosheet: unknown command "genrate"; did you mean generate? (see --help)`},
		{[]string{"templates", "lst"}, exitUsage, `annosheet: templates has no command "lst"; did you mean list? (see --help)`},
		{[]string{"export", recs, "--table", "long", "--annotators", "bbt"}, exitUsage, `--annotators bbt: no record is that annotator's; did you mean "bb"? (the records' annotators: ak, bb)`},
		{[]string{"export", recs, "--table", "long", "--annotator", "bbt"}, exitUsage, `--annotators bbt: no record is that annotator's; did you mean "bb"?`},
		{[]string{"agree", recs, "--annotators", "ak,bbt"}, exitFailure, `--annotators bbt: cannot compute agreement: no record of that annotator counts; did you mean "bb"?`},
		{[]string{"pull", dir, "--nonsense"}, exitUsage, "annosheet: unknown flag --nonsense (see --help)"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", c.args, code, c.code, c.want, errs)
		}
	}
	// The list export takes, as generate does, and its old name.
	out := filepath.Join(dir, "t.csv")
	if code, _, errs := runCLI(t, "export", recs, "--table", "long", "--annotators", "ak,bb", "--out", out); code != 0 {
		t.Errorf("--annotators ak,bb: exit %d: %s", code, errs)
	}
}

// TestUsageAllAtOnce: a command line with several mistakes is told all of
// them in one run, a line each, not one per run.
func TestUsageAllAtOnce(t *testing.T) {
	t.Parallel()
	code, _, errs := runCLI(t, "generate", "--format", "gsheet", "--overlap=-2", "--share", "bob", "--param", "x")
	want := "annosheet: --share is for --format gsheets (see --help)\n" +
		"annosheet: --param \"x\": expected NAME=VALUE (see --help)\n" +
		"annosheet: generate needs --template NAME|FILE (see --help)\n" +
		"annosheet: generate needs --input PATH (see --help)\n" +
		"annosheet: generate needs --out DIR (see --help)\n" +
		"annosheet: --format \"gsheet\": use xlsx or gsheets (see --help)\n" +
		"annosheet: --overlap and --batch-size take positive numbers (see --help)\n" +
		"annosheet: --share \"bob\": not an email address (see --help)\n"
	if code != exitUsage || errs != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errs, want)
	}
}
