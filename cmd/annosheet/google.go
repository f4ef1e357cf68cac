package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/xlsx"
)

// envEndpoint gives --endpoint.
const envEndpoint = "ANNOSHEET_SHEETS_ENDPOINT"

// googleOptions say where the Sheets API is and how to sign in.
type googleOptions struct {
	Endpoint string
	NoAuth   bool
}

func googleFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "endpoint", EnvVars: []string{envEndpoint}, Usage: "Sheets API base `URL` (default: Google; a fakesheets URL for dry runs)"},
		&cli.BoolFlag{Name: "no-auth", Usage: "send no credentials (only with a loopback --endpoint)"},
	}
}

func googleFrom(c *cli.Context) googleOptions {
	return googleOptions{Endpoint: c.String("endpoint"), NoAuth: c.Bool("no-auth")}
}

// options are the sheets.Options of the flags; a request retried is
// noted on stderr.
func (g googleOptions) options(stderr io.Writer) sheets.Options {
	return sheets.Options{Endpoint: g.Endpoint, NoAuth: g.NoAuth, Retry: sheets.Retry{
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "note: "+format+"\n", args...) },
	}}
}

// note says on stderr which account signs in.
func note(stderr io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(stderr, "note: "+s) }
}

// endpointRefused makes the endpoints sheets refuses (--no-auth with an
// endpoint that is not a loopback one, credentials to one that is neither
// Google's nor a loopback one) mistakes in the command line.
func endpointRefused(err error) error {
	if errors.Is(err, sheets.ErrNoAuthEndpoint) || errors.Is(err, sheets.ErrForeignEndpoint) {
		return cliargs.Usage(err)
	}
	return err
}

// backends are the backends pull, status and export read through: XLSX
// files need nothing; a Google spreadsheet a sign-in, made on first use.
func backends(g googleOptions, stderr io.Writer) study.Backends {
	return study.Backends{Files: xlsx.Store{}, Spreadsheets: googleStore(g, stderr, sheets.Store{}), Endpoint: g.Endpoint}
}

// googleStore completes a sheets.Store with the client of the given
// options, signed in on first use; an endpoint the options may not reach
// is the command line's mistake.
func googleStore(g googleOptions, stderr io.Writer, s sheets.Store) sheets.Store {
	signIn := sheets.SignInOnUse(g.options(stderr), note(stderr))
	s.Endpoint = g.Endpoint
	s.Client = func(ctx context.Context) (*sheets.Client, error) {
		c, err := signIn(ctx)
		return c, endpointRefused(err)
	}
	return s
}

// storeFor is where generate and adjudicate write: files, or for format
// gsheets Google spreadsheets made as s says.
func storeFor(format string, g googleOptions, stderr io.Writer, files xlsx.Store, s sheets.Store) backend.Store {
	if format == backend.KindGSheets {
		return googleStore(g, stderr, s)
	}
	return files
}
