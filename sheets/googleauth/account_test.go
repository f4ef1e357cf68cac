package googleauth_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/googletest"

	"golang.org/x/oauth2"

	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

func TestDefaultStore(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANNOSHEET_CONFIG_DIR", dir)
	s, err := googleauth.DefaultStore()
	if err != nil || s.Path != filepath.Join(dir, "token.json") {
		t.Errorf("got %q, %v; want the token file in %s", s.Path, err, dir)
	}
}

// TestSignIn: a sign-in is saved readable by the user alone; one to
// another token endpoint does not replace it.
func TestSignIn(t *testing.T) {
	ctx := context.Background()
	_, endpoint, secret := fakeGoogle(t)
	other, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	otherSecret := googletest.ClientSecret(t, other)
	store := googleauth.Store{Path: filepath.Join(t.TempDir(), "annosheet", "token.json")}
	login := googleauth.LoginOptions{Open: browser(t, nil), Timeout: 10 * time.Second}
	for _, tc := range []struct {
		name   string
		secret string
		is     error
		as     bool // an *OtherSignInError
	}{
		{name: "no client file", secret: filepath.Join(t.TempDir(), "none.json"), is: os.ErrNotExist},
		{name: "first", secret: secret},
		{name: "again", secret: secret},
		{name: "another token endpoint", secret: otherSecret, as: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(store.Path)
			err := store.SignIn(ctx, tc.secret, login)
			var other *googleauth.OtherSignInError
			switch {
			case tc.as:
				if !errors.As(err, &other) || other.Path != store.Path || !strings.HasPrefix(other.TokenURL, endpoint) || !strings.Contains(err.Error(), "run 'annosheet auth logout' first") {
					t.Fatalf("got %v, want an *OtherSignInError for %s", err, endpoint)
				}
			case !errors.Is(err, tc.is) || tc.is == nil && err != nil:
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			if after, _ := os.ReadFile(store.Path); tc.is != nil || tc.as {
				if string(after) != string(before) {
					t.Error("a refused sign-in changed the token file")
				}
				return
			}
			c, err := store.Load()
			if err != nil || !strings.HasPrefix(c.TokenURL, endpoint) || c.Token.RefreshToken == "" {
				t.Fatalf("saved %+v, %v", c, err)
			}
			if st, err := os.Stat(store.Path); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("token file: %v, %v", st, err)
			}
		})
	}
}

// TestSignOut: the sign-in is revoked at Google and the file deleted; a
// revocation that fails is a warning, and the file is deleted all the
// same.
func TestSignOut(t *testing.T) {
	ctx := context.Background()
	fake, _, secret := fakeGoogle(t)
	for _, tc := range []struct {
		name string
		// setup leaves the token file as the case needs it.
		setup   func(t *testing.T, s googleauth.Store)
		is      error
		warning string // what warn is told, "" for nothing
		revoked bool   // the saved sign-in no longer holds
	}{
		{name: "not signed in", setup: func(*testing.T, googleauth.Store) {}, is: googleauth.ErrNotSignedIn},
		{name: "signed in", setup: func(t *testing.T, s googleauth.Store) {
			if err := s.SignIn(ctx, secret, googleauth.LoginOptions{Open: browser(t, nil), Timeout: 10 * time.Second}); err != nil {
				t.Fatal(err)
			}
		}, revoked: true},
		{name: "Google unreachable", setup: func(t *testing.T, s googleauth.Store) {
			// Port 1 of this machine: nothing listens there.
			c := &googleauth.Cache{ClientID: "x", TokenURL: "http://127.0.0.1:1/token", Token: &oauth2.Token{AccessToken: "a", RefreshToken: "r"}}
			if err := s.Save(c); err != nil {
				t.Fatal(err)
			}
		}, warning: "; the token is deleted here, and you can remove annosheet's access in your Google account's security settings"},
		{name: "not a token file", setup: func(t *testing.T, s googleauth.Store) {
			if err := os.WriteFile(s.Path, []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := googleauth.Store{Path: filepath.Join(t.TempDir(), "token.json")}
			tc.setup(t, s)
			saved, _ := os.ReadFile(s.Path)
			var warnings []error
			err := s.SignOut(ctx, nil, func(err error) { warnings = append(warnings, err) })
			if !errors.Is(err, tc.is) || tc.is == nil && err != nil {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			switch {
			case tc.warning == "" && len(warnings) > 0:
				t.Errorf("warned %v", warnings)
			case tc.warning != "" && (len(warnings) != 1 || !strings.HasSuffix(warnings[0].Error(), tc.warning)):
				t.Errorf("warned %v, want one ending %q", warnings, tc.warning)
			}
			if _, err := os.Lstat(s.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the token file is still there: %v", err)
			}
			if tc.revoked {
				// Put the token back: Google no longer honours it.
				if err := os.WriteFile(s.Path, saved, 0o600); err != nil {
					t.Fatal(err)
				}
				fake.ExpireTokens()
				if _, err := s.Refresh(ctx); !errors.Is(err, googleauth.ErrExpired) {
					t.Errorf("the signed-out token still renews: %v", err)
				}
			}
		})
	}
}

// TestOpenBrowser opens a link with the system's opener, found on PATH.
func TestOpenBrowser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the opener this test puts on PATH is xdg-open, a shell script")
	}
	const link = "https://accounts.google.com/o/oauth2/auth?state=x"
	for _, tc := range []struct {
		name   string
		opener bool
		is     error
	}{
		{name: "an opener", opener: true},
		{name: "no opener", is: exec.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opened := filepath.Join(dir, "opened")
			if tc.opener {
				// Shell builtins alone: PATH holds this folder only.
				script := "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + "\n"
				if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(script), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", dir)
			err := googleauth.OpenBrowser(link)
			if !errors.Is(err, tc.is) || tc.is == nil && err != nil {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
			if !tc.opener {
				return
			}
			var got []byte
			for deadline := time.Now().Add(10 * time.Second); string(got) != link && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				got, _ = os.ReadFile(opened)
			}
			if string(got) != link {
				t.Errorf("opened %q, want %q", got, link)
			}
		})
	}
}
