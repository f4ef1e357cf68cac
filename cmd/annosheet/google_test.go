package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/sheets/googleauth"
)

// TestServiceAccountKeyBounded: a service account key is read within the
// credential files' budget, and a named pipe is never waited on.
func TestServiceAccountKeyBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		make      func(p string) error
		is        error
		want      string // the message, after the key's name
		wantEmail string
	}{
		{name: "a key", make: func(p string) error {
			return os.WriteFile(p, []byte(`{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com"}`), 0o600)
		}, wantEmail: "sa@p.iam.gserviceaccount.com"},
		{name: "over", make: func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Truncate(p, googleauth.MaxFileSize+1)
		}, is: boundedread.ErrTooLarge, want: ": larger than the 1 MiB a service account key may be"},
		{name: "named pipe", make: func(p string) error {
			if runtime.GOOS != "linux" {
				t.Skip("named pipes as on Linux")
			}
			return syscall.Mkfifo(p, 0o600)
		}, is: boundedread.ErrNotRegular, want: ": it is not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "key.json")
			if err := tc.make(p); err != nil {
				t.Skipf("cannot make the file: %v", err)
			}
			type result struct {
				email string
				err   error
			}
			done := make(chan result, 1)
			go func() {
				email, err := serviceAccountEmail(p)
				done <- result{email, err}
			}()
			select {
			case r := <-done:
				if tc.is == nil {
					if r.err != nil || r.email != tc.wantEmail {
						t.Errorf("got %q, %v; want %q", r.email, r.err, tc.wantEmail)
					}
					return
				}
				if !errors.Is(r.err, tc.is) || !strings.HasSuffix(r.err.Error(), p+tc.want) {
					t.Errorf("error %v, want one wrapping %v and ending %q", r.err, tc.is, p+tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the read blocks")
			}
		})
	}
}
