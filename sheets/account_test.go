package sheets_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/googletest"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// TestCheckEndpoint: calls without signing in go to this machine only,
// credentials to Google or to this machine only; SignIn refuses the same
// before it reads any credentials; no refusal names a flag.
func TestCheckEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  sheets.Options
		is   error
		want string // in the message
	}{
		{name: "Google", opt: sheets.Options{}},
		{name: "Google by its URL", opt: sheets.Options{Endpoint: "https://sheets.googleapis.com"}},
		{name: "a fake", opt: sheets.Options{Endpoint: "http://127.0.0.1:8080"}},
		{name: "a fake without signing in", opt: sheets.Options{Endpoint: "http://localhost:8080", NoAuth: true}},
		{name: "no sign-in to Google", opt: sheets.Options{NoAuth: true},
			is: sheets.ErrNoAuthEndpoint, want: "calls without signing in go only to a loopback endpoint (a fake of the Sheets API), not to Google"},
		{name: "no sign-in to Google by its URL", opt: sheets.Options{NoAuth: true, Endpoint: "https://sheets.googleapis.com"},
			is: sheets.ErrNoAuthEndpoint, want: "not to https://sheets.googleapis.com"},
		{name: "no sign-in elsewhere", opt: sheets.Options{NoAuth: true, Endpoint: "https://sheets.example.org"},
			is: sheets.ErrNoAuthEndpoint, want: "not to https://sheets.example.org"},
		{name: "credentials elsewhere", opt: sheets.Options{Endpoint: "https://sheets.example.org"},
			is: sheets.ErrForeignEndpoint, want: "endpoint https://sheets.example.org: annosheet sends your Google credentials to Google (https://*.googleapis.com) or to this machine only"},
		{name: "credentials to a lookalike", opt: sheets.Options{Endpoint: "http://sheets.googleapis.com.example.org"},
			is: sheets.ErrForeignEndpoint, want: "sends your Google credentials to Google"},
		{name: "credentials to Google without TLS", opt: sheets.Options{Endpoint: "http://sheets.googleapis.com"},
			is: sheets.ErrForeignEndpoint, want: "sends your Google credentials to Google"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sheets.CheckEndpoint(tc.opt)
			if !errors.Is(err, tc.is) || tc.is == nil && err != nil || tc.is != nil && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v saying %q", err, tc.is, tc.want)
			}
			if tc.is == nil {
				return
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("%q names a flag", err)
			}
			// A key that is not there would be another error, were it read.
			t.Setenv(sheets.EnvServiceAccount, filepath.Join(t.TempDir(), "none.json"))
			if _, err := sheets.SignIn(context.Background(), tc.opt, func(string) {}); !errors.Is(err, tc.is) {
				t.Errorf("SignIn: %v, want %v", err, tc.is)
			}
		})
	}
}

// TestSignInOnUse: the client is made at the first call and kept; a
// sign-in that failed is tried again; Store.Connect signs in at once.
func TestSignInOnUse(t *testing.T) {
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opt  sheets.Options
		is   error
	}{
		{name: "a fake without signing in", opt: sheets.Options{Endpoint: srv.URL, NoAuth: true}},
		{name: "no sign-in to Google", opt: sheets.Options{NoAuth: true}, is: sheets.ErrNoAuthEndpoint},
		{name: "credentials elsewhere", opt: sheets.Options{Endpoint: "https://sheets.example.org"}, is: sheets.ErrForeignEndpoint},
		{name: "not signed in", opt: sheets.Options{Endpoint: srv.URL}, is: sheets.ErrNoCredentials},
	} {
		t.Run(tc.name, func(t *testing.T) {
			googletest.NoAccount(t)
			s := sheets.Store{Client: sheets.SignInOnUse(tc.opt, func(string) {})}
			err := s.Connect(ctx)
			if !errors.Is(err, tc.is) || tc.is == nil && err != nil {
				t.Fatalf("Connect: %v, want %v", err, tc.is)
			}
			c1, err1 := s.Client(ctx)
			c2, err2 := s.Client(ctx)
			if !errors.Is(err1, tc.is) || !errors.Is(err2, tc.is) {
				t.Errorf("again: %v, %v, want %v", err1, err2, tc.is)
			}
			if tc.is == nil && (c1 == nil || c1 != c2) {
				t.Errorf("the client was not kept: %p, %p", c1, c2)
			}
		})
	}

	// A failed sign-in is tried again: a key set after it counts.
	googletest.NoAccount(t)
	var notes []string
	client := sheets.SignInOnUse(sheets.Options{Endpoint: srv.URL}, func(s string) { notes = append(notes, s) })
	if _, err := client(ctx); !errors.Is(err, sheets.ErrNoCredentials) {
		t.Fatalf("before the key: %v, want ErrNoCredentials", err)
	}
	const email = "study@lab.iam.gserviceaccount.com"
	key := filepath.Join(t.TempDir(), "key.json")
	if err := fake.WriteServiceAccountKey(key, email); err != nil {
		t.Fatal(err)
	}
	t.Setenv(sheets.EnvServiceAccount, key)
	c, err := client(ctx)
	if err != nil || !c.ServiceAccount {
		t.Fatalf("with the key: %v, %+v", err, c)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], email) {
		t.Errorf("notes %q, want the account once", notes)
	}
}

// signIn signs in to the fake as 'annosheet auth login' does, with a
// browser that follows the consent page's redirect.
func signIn(t *testing.T, fake *sheetsfake.Server) googleauth.Store {
	t.Helper()
	secret := googletest.ClientSecret(t, fake)
	store, err := googleauth.DefaultStore()
	if err != nil {
		t.Fatal(err)
	}
	open := func(link string) error {
		go func() {
			if resp, err := http.Get(link); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	if err := store.SignIn(context.Background(), secret, googleauth.LoginOptions{Open: open, Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	return store
}

// TestStatus: who annosheet signs in as, and whether Google still
// accepts a user's sign-in.
func TestStatus(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// setup signs in, or not, and gives the options Status is given.
		setup func(t *testing.T, fake *sheetsfake.Server, endpoint string) sheets.Options
		is    error
		want  string // in the error, when there is no value to compare it with
		// account is what Status says, beside the expiry.
		account func(t *testing.T) sheets.Account
	}{
		{name: "not signed in", setup: func(t *testing.T, _ *sheetsfake.Server, endpoint string) sheets.Options {
			return sheets.Options{Endpoint: endpoint}
		}, is: sheets.ErrNoCredentials},
		{name: "service account", setup: func(t *testing.T, fake *sheetsfake.Server, endpoint string) sheets.Options {
			key := filepath.Join(os.Getenv("ANNOSHEET_CONFIG_DIR"), "key.json")
			if err := fake.WriteServiceAccountKey(key, "study@lab.iam.gserviceaccount.com"); err != nil {
				t.Fatal(err)
			}
			t.Setenv(sheets.EnvServiceAccount, key)
			return sheets.Options{Endpoint: endpoint}
		}, account: func(t *testing.T) sheets.Account {
			return sheets.Account{ServiceAccount: "study@lab.iam.gserviceaccount.com", KeyFile: filepath.Join(os.Getenv("ANNOSHEET_CONFIG_DIR"), "key.json")}
		}},
		{name: "not a service account key", setup: func(t *testing.T, _ *sheetsfake.Server, endpoint string) sheets.Options {
			key := filepath.Join(t.TempDir(), "key.json")
			if err := os.WriteFile(key, []byte(`{"type":"authorized_user"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv(sheets.EnvServiceAccount, key)
			return sheets.Options{Endpoint: endpoint}
		}, want: "not a service account key"},
		{name: "a user", setup: func(t *testing.T, fake *sheetsfake.Server, endpoint string) sheets.Options {
			signIn(t, fake)
			return sheets.Options{Endpoint: endpoint}
		}, account: userAccount(sheetsfake.FakeUser)},
		{name: "a user, Drive elsewhere", setup: func(t *testing.T, fake *sheetsfake.Server, endpoint string) sheets.Options {
			signIn(t, fake)
			return sheets.Options{Endpoint: "https://sheets.example.org"}
		}, account: userAccount("")},
		{name: "a user who revoked the grant", setup: func(t *testing.T, fake *sheetsfake.Server, endpoint string) sheets.Options {
			signIn(t, fake)
			fake.RevokeAll()
			return sheets.Options{Endpoint: endpoint}
		}, is: googleauth.ErrExpired},
	} {
		t.Run(tc.name, func(t *testing.T) {
			googletest.NoAccount(t)
			fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			got, err := sheets.Status(ctx, tc.setup(t, fake, srv.URL))
			switch {
			case tc.is != nil || tc.want != "":
				if got != nil || err == nil || tc.is != nil && !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %+v, %v; want %v saying %q", got, err, tc.is, tc.want)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			want := tc.account(t)
			if want.ServiceAccount == "" && !got.Expiry.After(time.Now()) {
				t.Errorf("expiry %v, want one to come", got.Expiry)
			}
			want.Expiry = got.Expiry
			if *got != want {
				t.Errorf("got %+v, want %+v", *got, want)
			}
		})
	}
}

// userAccount is the fake's user's account as Status finds it, email the
// address Drive gives.
func userAccount(email string) func(t *testing.T) sheets.Account {
	return func(t *testing.T) sheets.Account {
		c, err := googleauth.Store{Path: filepath.Join(os.Getenv("ANNOSHEET_CONFIG_DIR"), "token.json")}.Load()
		if err != nil {
			t.Fatal(err)
		}
		return sheets.Account{Email: email, ClientID: c.ClientID, TokenFile: filepath.Join(os.Getenv("ANNOSHEET_CONFIG_DIR"), "token.json")}
	}
}

// TestSaveSignInSignOut: a sign-in is saved where SignIn finds it, and a
// sign-out deletes it (and says where); signing out again, or before any
// sign-in, has nothing to undo.
func TestSaveSignInSignOut(t *testing.T) {
	ctx := context.Background()
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := googletest.NoAccount(t)
	token := filepath.Join(dir, "token.json")
	open := func(link string) error {
		go func() {
			if resp, err := http.Get(link); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	for _, tc := range []struct {
		name string
		do   func() (string, error)
		want string // the path said
		is   error
		// saved says whether the token file is there after it.
		saved bool
	}{
		{name: "sign out before any sign-in", do: func() (string, error) { return sheets.SignOut(ctx, nil) }},
		{name: "no client file", do: func() (string, error) {
			return sheets.SaveSignIn(ctx, filepath.Join(t.TempDir(), "none.json"), googleauth.LoginOptions{Open: open, Timeout: 10 * time.Second})
		}, is: os.ErrNotExist},
		{name: "sign in", do: func() (string, error) {
			return sheets.SaveSignIn(ctx, googletest.ClientSecret(t, fake), googleauth.LoginOptions{Open: open, Timeout: 10 * time.Second})
		}, want: token, saved: true},
		{name: "sign out", do: func() (string, error) {
			var warned []error
			path, err := sheets.SignOut(ctx, func(err error) { warned = append(warned, err) })
			if len(warned) > 0 {
				t.Errorf("warned %v", warned)
			}
			return path, err
		}, want: token},
		{name: "sign out again", do: func() (string, error) { return sheets.SignOut(ctx, nil) }},
	} {
		path, err := tc.do()
		if path != tc.want || !errors.Is(err, tc.is) || tc.is == nil && err != nil {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.name, path, err, tc.want, tc.is)
		}
		if _, err := os.Stat(token); (err == nil) != tc.saved {
			t.Errorf("%s: token file: %v, want saved %v", tc.name, err, tc.saved)
		}
	}
}

// TestAccountLines: a service account is named with its key and what it
// cannot do; a user by address (or as unnamed), with the OAuth client,
// the token's file, and the token's expiry in local time.
func TestAccountLines(t *testing.T) {
	t.Parallel()
	sa := &sheets.Account{ServiceAccount: "bot@p.iam.gserviceaccount.com", KeyFile: "key.json"}
	if got := sa.Lines(); len(got) != 2 || got[0] != "service account bot@p.iam.gserviceaccount.com (key key.json, from "+sheets.EnvServiceAccount+")" || !strings.Contains(got[1], "cannot own spreadsheets") {
		t.Errorf("service account: %q", got)
	}
	expiry := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	user := &sheets.Account{Email: "ak@example.org", ClientID: "c1", TokenFile: "token.json", Expiry: expiry}
	want := []string{
		"signed in as ak@example.org, with OAuth client c1 (scope drive.file); token in token.json",
		"Google accepts it: access token valid until " + expiry.Local().Format(time.DateTime),
	}
	if got := user.Lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("user: %q, want %q", got, want)
	}
	user.Email = ""
	if got := user.Lines(); !strings.HasPrefix(got[0], "signed in as an account Google did not name,") {
		t.Errorf("unnamed user: %q", got)
	}
}
