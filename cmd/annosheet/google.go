package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
)

// envServiceAccount names a service account key, as for every Google
// client library.
const envServiceAccount = "GOOGLE_APPLICATION_CREDENTIALS"

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
		return nil, usagef("--no-auth is only allowed with a loopback --endpoint (a fake of the Sheets API)")
	}
	if !g.NoAuth && g.Endpoint != "" && !sheets.IsLoopback(g.Endpoint) && !googleEndpoint(g.Endpoint) {
		return nil, usagef("--endpoint %s: annosheet sends your Google credentials to Google (https://*.googleapis.com) or to this machine only", g.Endpoint)
	}
	o := sheets.Options{Endpoint: g.Endpoint, NoAuth: g.NoAuth, Retry: sheets.Retry{
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, "note: "+format+"\n", args...) },
	}}
	if !g.NoAuth {
		if key := os.Getenv(envServiceAccount); key != "" {
			email, err := serviceAccountEmail(key)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(stderr, "note: signing in as service account %s (%s)\n", email, envServiceAccount)
			o.CredentialsFile = key
		} else {
			path, err := googleauth.DefaultPath()
			if err != nil {
				return nil, err
			}
			ts, err := googleauth.Store{Path: path}.TokenSource(ctx)
			if errors.Is(err, googleauth.ErrNotSignedIn) {
				return nil, sheets.ErrNoCredentials
			}
			if err != nil {
				return nil, err
			}
			o.TokenSource = ts
		}
	}
	return sheets.New(ctx, o)
}

// googleEndpoint reports an https endpoint of Google's.
func googleEndpoint(e string) bool {
	u, err := url.Parse(e)
	return err == nil && u.Scheme == "https" && (u.Hostname() == "googleapis.com" || strings.HasSuffix(u.Hostname(), ".googleapis.com"))
}

// explainGoogle adds what to do to Google's refusals.
func explainGoogle(err error) error {
	serviceAccount := os.Getenv(envServiceAccount) != ""
	var ge *googleapi.Error
	if serviceAccount && errors.As(err, &ge) && ge.Code == http.StatusUnauthorized {
		return fmt.Errorf("%w\n(Google refused the service account key in %s: check that the key is current and the account enabled)", err, envServiceAccount)
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

// serviceAccountEmail reads the account a service account key is for. The
// key is a credential file like the others, bounded alike.
func serviceAccountEmail(path string) (string, error) {
	b, err := boundedread.ReadFile(path, googleauth.MaxFileSize, "a service account key")
	if err != nil {
		return "", fmt.Errorf("%s: %w", envServiceAccount, err)
	}
	var k struct {
		Type  string `json:"type"`
		Email string `json:"client_email"`
	}
	if err := json.Unmarshal(b, &k); err != nil || k.Type != "service_account" || k.Email == "" {
		return "", fmt.Errorf("%s=%s: not a service account key (a JSON key file with type \"service_account\")", envServiceAccount, path)
	}
	return k.Email, nil
}
