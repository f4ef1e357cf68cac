package googleauth_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annosheet/annosheet/sheets/googleauth"
)

// FuzzReadClientSecret: any file is read or refused with an error naming
// it; one that is read has a client ID and endpoints that are https or
// loopback.
func FuzzReadClientSecret(f *testing.F) {
	for _, s := range []string{
		`{"installed":{"client_id":"x.apps.googleusercontent.com","client_secret":"s","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token"}}`,
		`{"installed":{"client_id":"x","auth_uri":"http://127.0.0.1:1/auth","token_uri":"http://127.0.0.1:1/token"}}`,
		`{"web":{}}`, `{"installed":null}`, `{"installed":[]}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "client.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := googleauth.ReadClientSecret(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if cfg.ClientID == "" {
			t.Errorf("read with no client ID: %s", b)
		}
		for _, u := range []string{cfg.Endpoint.AuthURL, cfg.Endpoint.TokenURL} {
			pu, err := url.Parse(u)
			if err != nil || pu.Scheme != "https" && pu.Scheme != "http" {
				t.Errorf("endpoint %q accepted", u)
			}
		}
	})
}

// FuzzLoad: any token file is loaded or refused, never trusted half-read.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"client_id":"x","token_uri":"https://oauth2.googleapis.com/token","token":{"access_token":"a","refresh_token":"r"}}`,
		`{}`, `{"token":null}`, `{"token_uri":"x","token":{}}`, `nonsense`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "token.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := googleauth.Store{Path: p}.Load()
		if err != nil {
			return
		}
		if c.Token == nil || c.TokenURL == "" {
			t.Errorf("loaded without a token or token endpoint: %s", b)
		}
		_ = c.RevokeURL()
		_ = c.Config()
	})
}
