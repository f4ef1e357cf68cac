package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/urfave/cli/v2"
	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/internal/cliargs"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
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

// client signs in: a service account key in GOOGLE_APPLICATION_CREDENTIALS,
// else the token 'annosheet auth login' saved. Credentials go to Google or
// to this machine only.
func (g googleOptions) client(ctx context.Context, stderr io.Writer) (*sheets.Client, error) {
	if g.NoAuth && (g.Endpoint == "" || !sheets.IsLoopback(g.Endpoint)) {
		return nil, cliargs.Usagef("--no-auth is only allowed with a loopback --endpoint (a fake of the Sheets API)")
	}
	if !g.NoAuth && g.Endpoint != "" && !sheets.IsLoopback(g.Endpoint) && !sheets.IsGoogle(g.Endpoint) {
		return nil, cliargs.Usagef("--endpoint %s: annosheet sends your Google credentials to Google (https://*.googleapis.com) or to this machine only", g.Endpoint)
	}
	o := sheets.Options{Endpoint: g.Endpoint, NoAuth: g.NoAuth, Retry: sheets.Retry{
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "note: "+format+"\n", args...) },
	}}
	return sheets.SignIn(ctx, o, func(s string) { fmt.Fprintln(stderr, "note: "+s) })
}

// explainGoogle adds what to do to Google's refusals.
func explainGoogle(err error) error {
	serviceAccount := os.Getenv(sheets.EnvServiceAccount) != ""
	var ge *googleapi.Error
	if serviceAccount && errors.As(err, &ge) && ge.Code == http.StatusUnauthorized {
		return fmt.Errorf("%w\n(Google refused the service account key in %s: check that the key is current and the account enabled)", err, sheets.EnvServiceAccount)
	}
	err = googleauth.Explain(err)
	if errors.As(err, &ge) {
		for _, item := range ge.Errors {
			switch item.Reason {
			case "appNotAuthorizedToFile":
				return fmt.Errorf("%w\n(annosheet asks Google only for the files it makes itself (the drive.file scope), and this file or folder is not one of them: leave out --folder and move the spreadsheet in Drive, or use a folder annosheet can reach)", err)
			case "storageQuotaExceeded":
				if serviceAccount {
					return fmt.Errorf("%w\n(a service account owns no Drive space: give --folder a folder of a shared drive where it is a member)", err)
				}
			}
		}
		switch ge.Code {
		case http.StatusForbidden:
			return fmt.Errorf("%w\n(Google refused: a quota, or no permission; a permission error needs the owner to share the spreadsheet or folder, and waiting will not help)", err)
		case http.StatusNotFound:
			return fmt.Errorf("%w\n(not found, or not open to annosheet: with the drive.file scope it reaches only the spreadsheets it made while signed in as the same account)", err)
		}
	}
	return err
}
