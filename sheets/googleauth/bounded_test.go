package googleauth_test

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

// TestCredentialFilesBounded: a client secret or token file over
// MaxFileSize is refused unread (a sparse file costs no disk), naming the
// file and the limit; a named pipe is refused without waiting for a
// writer.
func TestCredentialFilesBounded(t *testing.T) {
	t.Parallel()
	readSecret := func(p string) error { _, err := googleauth.ReadClientSecret(p); return err }
	loadToken := func(p string) error { _, err := googleauth.Store{Path: p}.Load(); return err }
	for _, tc := range []struct {
		name string
		read func(string) error
		fifo bool
		is   error
		want string // the message, after the file's name
	}{
		{name: "client secret over", read: readSecret, is: boundedread.ErrTooLarge,
			want: ": larger than the 1 MiB a client secret file may be"},
		{name: "token over", read: loadToken, is: boundedread.ErrTooLarge,
			want: ": larger than the 1 MiB a token file may be; remove it and run 'annosheet auth login' again"},
		{name: "client secret pipe", read: readSecret, fifo: true, is: boundedread.ErrNotRegular,
			want: ": it is not a regular file (a named pipe)"},
		{name: "token pipe", read: loadToken, fifo: true,
			want: " is not a regular file (a link?); remove it and run 'annosheet auth login' again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "file.json")
			if tc.fifo {
				fifo.Make(t, p)
			} else {
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(p, googleauth.MaxFileSize+1); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			fifo.Within(t, 10*time.Second, func() { err = tc.read(p) })
			if err == nil || !strings.HasSuffix(err.Error(), p+tc.want) {
				t.Errorf("error %v, want one ending %q", err, p+tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}
