package sheets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/testkit/fifo"
)

// TestServiceAccountKeyBounded: a service account key is read within the
// credential files' budget, and a named pipe is never waited on.
func TestServiceAccountKeyBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		make      func(t testing.TB, p string)
		is        error
		want      string // the message, after the key's name
		wantEmail string
	}{
		{name: "a key", make: func(t testing.TB, p string) {
			if err := os.WriteFile(p, []byte(`{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com"}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantEmail: "sa@p.iam.gserviceaccount.com"},
		{name: "over", make: func(t testing.TB, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, googleauth.MaxFileSize+1); err != nil {
				t.Fatal(err)
			}
		}, is: boundedread.ErrTooLarge, want: ": larger than the 1 MiB a service account key may be"},
		{name: "named pipe", make: fifo.Make,
			is: boundedread.ErrNotRegular, want: ": it is not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "key.json")
			tc.make(t, p)
			var email string
			var err error
			fifo.Within(t, 10*time.Second, func() { email, err = ServiceAccountEmail(p) })
			if tc.is == nil {
				if err != nil || email != tc.wantEmail {
					t.Errorf("got %q, %v; want %q", email, err, tc.wantEmail)
				}
				return
			}
			if !errors.Is(err, tc.is) || !strings.HasSuffix(err.Error(), p+tc.want) {
				t.Errorf("error %v, want one wrapping %v and ending %q", err, tc.is, p+tc.want)
			}
		})
	}
}

// TestIsGoogle: credentials go to Google's https endpoints only (with
// the loopback ones IsLoopback names).
func TestIsGoogle(t *testing.T) {
	t.Parallel()
	for e, want := range map[string]bool{
		"https://sheets.googleapis.com":             true,
		"https://googleapis.com/x":                  true,
		"http://sheets.googleapis.com":              false,
		"https://sheets.googleapis.com.example.org": false,
		"https://evilgoogleapis.com":                false,
		"https://sheets.example.org":                false,
		"::":                                        false,
	} {
		if got := IsGoogle(e); got != want {
			t.Errorf("IsGoogle(%q) = %v, want %v", e, got, want)
		}
	}
}
