package main

import (
	"strings"
	"testing"
)

// TestAgreeRanges: agree refuses, as a usage error that names the flag
// and its range, an interval level outside (0, 1), resamples outside 1
// to 1,000,000 and a bound on the pairs listed outside 1 to 100,000,
// before it reads anything.
func TestAgreeRanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--ci", "NaN"}, "--ci NaN: give a level between 0 and 1"},
		{[]string{"--ci", "0"}, "--ci 0: give a level between 0 and 1"},
		{[]string{"--ci", "1"}, "--ci 1: give a level between 0 and 1"},
		{[]string{"--ci=-0.5"}, "--ci -0.5: give a level between 0 and 1"},
		{[]string{"--ci", "1.5"}, "--ci 1.5: give a level between 0 and 1"},
		{[]string{"--ci", "+Inf"}, "--ci +Inf: give a level between 0 and 1"},
		{[]string{"--ci", "0.95", "--resamples", "0"}, "--resamples 0: give a whole number from 1 to 1,000,000"},
		{[]string{"--ci", "0.95", "--resamples=-5"}, "--resamples -5: give a whole number from 1 to 1,000,000"},
		{[]string{"--ci", "0.95", "--resamples", "2000000000"}, "--resamples 2000000000: give a whole number from 1 to 1,000,000"},
		{[]string{"--resamples", "1000001"}, "--resamples 1000001: give a whole number from 1 to 1,000,000"},
		{[]string{"--max-pairs", "0"}, "--max-pairs 0: give a whole number from 1 to 100,000"},
		{[]string{"--max-pairs", "100001"}, "--max-pairs 100001: give a whole number from 1 to 100,000"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			// The source does not exist: a range check comes first.
			code, stdout, stderr := runCLI(t, append([]string{"agree", "missing.jsonl"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}
