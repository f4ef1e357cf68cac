package sheets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/sheets/googleauth"
)

// EnvServiceAccount names a service account key, as for every Google
// client library.
const EnvServiceAccount = "GOOGLE_APPLICATION_CREDENTIALS"

// IsGoogle reports whether an endpoint is an https endpoint of Google's
// (https://*.googleapis.com): with IsLoopback, the only places
// credentials are sent.
func IsGoogle(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Scheme == "https" && (u.Hostname() == "googleapis.com" || strings.HasSuffix(u.Hostname(), ".googleapis.com"))
}

// SignIn connects as New does, with the credentials this machine has
// when o names none: a service account key in GOOGLE_APPLICATION_CREDENTIALS,
// else the token 'annosheet auth login' saved (ErrNoCredentials without
// either). note is told which account signs in.
func SignIn(ctx context.Context, o Options, note func(string)) (*Client, error) {
	if !o.NoAuth && o.CredentialsFile == "" && o.TokenSource == nil {
		if key := os.Getenv(EnvServiceAccount); key != "" {
			email, err := ServiceAccountEmail(key)
			if err != nil {
				return nil, err
			}
			note(fmt.Sprintf("signing in as service account %s (%s)", email, EnvServiceAccount))
			o.CredentialsFile = key
		} else {
			path, err := googleauth.DefaultPath()
			if err != nil {
				return nil, err
			}
			ts, err := googleauth.Store{Path: path}.TokenSource(ctx)
			if errors.Is(err, googleauth.ErrNotSignedIn) {
				return nil, ErrNoCredentials
			}
			if err != nil {
				return nil, err
			}
			o.TokenSource = ts
		}
	}
	return New(ctx, o)
}

// ServiceAccountEmail reads the account a service account key is for.
// The key is a credential file like the others, bounded alike.
func ServiceAccountEmail(path string) (string, error) {
	b, err := boundedread.ReadFile(path, googleauth.MaxFileSize, "a service account key")
	if err != nil {
		return "", fmt.Errorf("%s: %w", EnvServiceAccount, err)
	}
	var k struct {
		Type  string `json:"type"`
		Email string `json:"client_email"`
	}
	if err := json.Unmarshal(b, &k); err != nil || k.Type != "service_account" || k.Email == "" {
		return "", fmt.Errorf("%s=%s: not a service account key (a JSON key file with type \"service_account\")", EnvServiceAccount, path)
	}
	return k.Email, nil
}
