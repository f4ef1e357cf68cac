package cliargs

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"
)

// parse runs a command of the flags values_test reads over args, and
// gives fn its context.
func parse(t *testing.T, args []string, fn func(*cli.Context) error) error {
	t.Helper()
	app := &cli.App{Writer: io.Discard, ErrWriter: io.Discard, Flags: []cli.Flag{
		&cli.StringSliceFlag{Name: "param"},
		&cli.Float64Flag{Name: "ci"},
		&cli.IntFlag{Name: "resamples", Value: 1000},
	}, Action: fn}
	return app.Run(append([]string{"x"}, args...))
}

func TestList(t *testing.T) {
	t.Parallel()
	got := List([]string{"ak, bt", "", " cm ,", "dd"})
	if want := []string{"ak", "bt", "cm", "dd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	if List(nil) != nil {
		t.Error("List(nil) is not nil")
	}
}

func TestValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		params map[string]string
		bad    string // the usage error, "" for none
	}{
		{args: nil, params: map[string]string{}},
		{args: []string{"--param", "a=1", "--param", "b=x=y", "--param", "a=2"}, params: map[string]string{"a": "2", "b": "x=y"}},
		{args: []string{"--param", "a=", "--ci", "0.9", "--resamples", "1"}, params: map[string]string{"a": ""}},
		{args: []string{"--param", "novalue"}, bad: `--param "novalue": expected NAME=VALUE`},
		{args: []string{"--param", "=v"}, bad: `--param "=v": expected NAME=VALUE`},
		{args: []string{"--ci", "1"}, params: map[string]string{}, bad: "--ci 1: give a level between 0 and 1, both excluded, such as 0.95"},
		{args: []string{"--ci", "0"}, params: map[string]string{}, bad: "--ci 0: give a level between 0 and 1, both excluded, such as 0.95"},
		{args: []string{"--ci", "NaN"}, params: map[string]string{}, bad: "--ci NaN: give a level between 0 and 1, both excluded, such as 0.95"},
		{args: []string{"--resamples", "0"}, params: map[string]string{}, bad: "--resamples 0: give a whole number from 1 to 1,000,000"},
		{args: []string{"--resamples", "1000001"}, params: map[string]string{}, bad: "--resamples 1000001: give a whole number from 1 to 1,000,000"},
	} {
		err := parse(t, tc.args, func(c *cli.Context) error {
			p, err := Params(c, "param")
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(p, tc.params) {
				t.Errorf("%q: Params = %v, want %v", tc.args, p, tc.params)
			}
			if err := Level(c, "ci"); err != nil {
				return err
			}
			return Count(c, "resamples", 1, 1_000_000)
		})
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.bad != "" && (err == nil || err.Error() != tc.bad || !errors.Is(err, ErrUsage)):
			t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.bad)
		}
	}
}

// TestOneOf: the one flag given, none, or a usage error naming them all.
func TestOneOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  []string
		names []string
		want  string
		bad   string
	}{
		{args: nil, names: []string{"json", "csv"}},
		{args: []string{"--csv"}, names: []string{"json", "csv"}, want: "csv"},
		{args: []string{"--json", "--csv"}, names: []string{"json", "csv"}, bad: "give --json or --csv, not both"},
		{args: []string{"--latex"}, names: []string{"json", "csv", "latex"}, want: "latex"},
		{args: []string{"--json", "--latex"}, names: []string{"json", "csv", "latex"}, bad: "give one of --json, --csv and --latex"},
	} {
		app := &cli.App{Writer: io.Discard, ErrWriter: io.Discard, Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json"}, &cli.BoolFlag{Name: "csv"}, &cli.BoolFlag{Name: "latex"},
		}, Action: func(c *cli.Context) error {
			got, err := OneOf(c, tc.names...)
			if got != tc.want || (err == nil) != (tc.bad == "") || err != nil && (err.Error() != tc.bad || !errors.Is(err, ErrUsage)) {
				t.Errorf("%q: %q, %v; want %q, %q", tc.args, got, err, tc.want, tc.bad)
			}
			return nil
		}}
		if err := app.Run(append([]string{"x"}, tc.args...)); err != nil {
			t.Fatal(err)
		}
	}
}
