// Package googletest keeps tests that sign in to Google away from the
// user's own sign-in, and gives them the fake's OAuth client.
package googletest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// NoAccount keeps a test away from the real user's sign-in: no service
// account key, no endpoint from the environment, and a config folder of
// its own, empty, which it returns.
func NoAccount(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("ANNOSHEET_CONFIG_DIR", dir)
	t.Setenv(sheets.EnvServiceAccount, "")
	t.Setenv("ANNOSHEET_SHEETS_ENDPOINT", "")
	return dir
}

// ClientSecret writes the fake's OAuth client file, as the Cloud console
// gives it, and returns its path.
func ClientSecret(t *testing.T, fake *sheetsfake.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "client_secret.json")
	if err := os.WriteFile(path, fake.ClientSecretJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
