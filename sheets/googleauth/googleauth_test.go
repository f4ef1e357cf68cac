package googleauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/googletest"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"google.golang.org/api/googleapi"
)

// fakeGoogle starts the fake with auth required and writes its client
// secret file.
func fakeGoogle(t *testing.T) (*sheetsfake.Server, string, string) {
	t.Helper()
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{RequireAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return fake, srv.URL, googletest.ClientSecret(t, fake)
}

// browser plays the user's browser: it opens the consent page, which the
// fake answers with a redirect to annosheet's loopback listener, and
// follows it.
func browser(t *testing.T, visited *string) func(string) error {
	return func(link string) error {
		go func() {
			resp, err := http.Get(link)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if visited != nil {
				*visited = string(b)
			}
		}()
		return nil
	}
}

func TestLoginSaveRefreshRevoke(t *testing.T) {
	fake, endpoint, secret := fakeGoogle(t)
	ctx := context.Background()
	cfg, err := googleauth.ReadClientSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	var notify strings.Builder
	var page string
	tok, err := googleauth.Login(ctx, cfg, googleauth.LoginOptions{Open: browser(t, &page), Notify: &notify, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token without access or refresh part: %+v", tok)
	}
	// The link the user is shown asks for drive.file alone, offline, with
	// a PKCE challenge and a loopback redirect.
	link := notify.String()[strings.Index(notify.String(), "http"):]
	link = link[:strings.IndexAny(link, " \n")]
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, want := range map[string]string{"scope": sheets.Scope, "access_type": "offline", "code_challenge_method": "S256", "response_type": "code"} {
		if q.Get(k) != want {
			t.Errorf("consent link %s = %q, want %q", k, q.Get(k), want)
		}
	}
	if !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || q.Get("code_challenge") == "" || q.Get("state") == "" {
		t.Errorf("consent link lacks loopback redirect, challenge or state: %s", link)
	}

	// The cache is private: 0600 in a 0700 folder.
	path := filepath.Join(t.TempDir(), "cfg", "annosheet", "token.json")
	store := googleauth.Store{Path: path}
	if err := store.Save(googleauth.NewCache(cfg, tok)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s has mode %o, want %o", p, st.Mode().Perm(), want)
		}
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(notify.String(), tok.RefreshToken) || strings.Contains(notify.String(), tok.AccessToken) {
		t.Error("a token was printed")
	}

	call := func() error {
		ts, err := store.TokenSource(ctx)
		if err != nil {
			return err
		}
		c, err := sheets.New(ctx, sheets.Options{Endpoint: endpoint, TokenSource: ts})
		if err != nil {
			return err
		}
		_, err = c.Sheets.Spreadsheets.Get("fake-does-not-exist-0000000000").Context(ctx).Do()
		// Authorised: the spreadsheet is simply not there. The status is
		// read from the API's error, never from its text, which holds the
		// fake's port (a port such as 40404 once passed a revoked grant).
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusNotFound {
			return nil
		}
		if err == nil {
			return errors.New("a missing spreadsheet was found")
		}
		return googleauth.Explain(err)
	}
	if err := call(); err != nil {
		t.Fatalf("signed-in call: %v", err)
	}
	if fake.Refreshes() != 0 {
		t.Errorf("%d refreshes before the token expired", fake.Refreshes())
	}

	// An hour later: the token is refreshed and the new one saved.
	anHourLater(t, fake, store)
	if err := call(); err != nil {
		t.Fatalf("call after expiry: %v", err)
	}
	if fake.Refreshes() != 1 {
		t.Errorf("%d refreshes, want 1", fake.Refreshes())
	}
	c, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Token.AccessToken == tok.AccessToken || c.Token.RefreshToken != tok.RefreshToken {
		t.Errorf("the refreshed token was not saved with its refresh token kept")
	}
	if after, _ := os.ReadFile(path); string(after) == string(raw) {
		t.Error("the token file did not change on refresh")
	}

	// Sign out: the grant is revoked at Google; using it again fails with
	// a clear error.
	if err := googleauth.Revoke(ctx, nil, c); err != nil {
		t.Fatal(err)
	}
	anHourLater(t, fake, store)
	if err := call(); !errors.Is(err, googleauth.ErrExpired) {
		t.Fatalf("after revoke: %v, want ErrExpired", err)
	}
	// Revoking twice is not an error: the goal is met.
	if err := googleauth.Revoke(ctx, nil, c); err != nil {
		t.Errorf("second revoke: %v", err)
	}
}

// anHourLater expires the access tokens on both sides, as the clock would.
func anHourLater(t *testing.T, fake *sheetsfake.Server, store googleauth.Store) {
	t.Helper()
	fake.ExpireTokens()
	c, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	c.Token.Expiry = time.Now().Add(-time.Minute)
	if err := store.Save(c); err != nil {
		t.Fatal(err)
	}
}

func TestRevokedByUser(t *testing.T) {
	fake, endpoint, secret := fakeGoogle(t)
	ctx := context.Background()
	cfg, _ := googleauth.ReadClientSecret(secret)
	tok, err := googleauth.Login(ctx, cfg, googleauth.LoginOptions{Open: browser(t, nil), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	store := googleauth.Store{Path: filepath.Join(t.TempDir(), "token.json")}
	if err := store.Save(googleauth.NewCache(cfg, tok)); err != nil {
		t.Fatal(err)
	}
	// The user removes the app's access in their Google account.
	fake.RevokeAll()
	ts, _ := store.TokenSource(ctx)
	c, err := sheets.New(ctx, sheets.Options{Endpoint: endpoint, TokenSource: ts})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Sheets.Spreadsheets.Get("fake-does-not-exist-0000000000").Context(ctx).Do()
	if err := googleauth.Explain(err); !errors.Is(err, googleauth.ErrExpired) {
		t.Fatalf("revoked grant, unexpired token: %v, want ErrExpired", err)
	}
}

func TestLoginRefusals(t *testing.T) {
	_, _, secret := fakeGoogle(t)
	cfg, _ := googleauth.ReadClientSecret(secret)
	ctx := context.Background()

	t.Run("user denies", func(t *testing.T) {
		open := func(link string) error {
			u, _ := url.Parse(link)
			q := u.Query()
			back := fmt.Sprintf("%s?error=access_denied&state=%s", q.Get("redirect_uri"), url.QueryEscape(q.Get("state")))
			go http.Get(back)
			return nil
		}
		_, err := googleauth.Login(ctx, cfg, googleauth.LoginOptions{Open: open, Timeout: 10 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "access_denied") {
			t.Fatalf("got %v, want Google's refusal", err)
		}
	})
	t.Run("wrong state is ignored", func(t *testing.T) {
		var status int
		open := func(link string) error {
			u, _ := url.Parse(link)
			q := u.Query()
			// A forged answer first: refused, and the sign-in goes on.
			resp, err := http.Get(q.Get("redirect_uri") + "?code=forged&state=other")
			if err != nil {
				return err
			}
			resp.Body.Close()
			status = resp.StatusCode
			go http.Get(link)
			return nil
		}
		tok, err := googleauth.Login(ctx, cfg, googleauth.LoginOptions{Open: open, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusBadRequest || tok.AccessToken == "" {
			t.Errorf("forged answer got %d; token %v", status, tok)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		_, err := googleauth.Login(ctx, cfg, googleauth.LoginOptions{Timeout: 50 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), "no answer") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := googleauth.Login(cctx, cfg, googleauth.LoginOptions{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestReadClientSecret(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"web.json", `{"web":{"client_id":"x"}}`, "web application client"},
		{"sa.json", `{"type":"service_account","client_email":"a@b"}`, "not an OAuth client file"},
		{"broken.json", `{"installed":`, "not JSON"},
		{"noid.json", `{"installed":{"auth_uri":"https://a","token_uri":"https://b"}}`, "client_id is missing"},
		{"http.json", `{"installed":{"client_id":"x","auth_uri":"http://evil.example/auth","token_uri":"https://oauth2.googleapis.com/token"}}`, "neither Google's"},
		{"token-elsewhere.json", `{"installed":{"client_id":"x","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com.evil.example/token"}}`, "neither Google's"},
		{"lookalike.json", `{"installed":{"client_id":"x","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://evilgoogleapis.com/token"}}`, "neither Google's"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.body), 0o600)
		_, err := googleauth.ReadClientSecret(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: got %v, want an error naming the file and %q", tc.name, err, tc.want)
		}
	}
	if _, err := googleauth.ReadClientSecret(filepath.Join(dir, "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	s := googleauth.Store{Path: filepath.Join(dir, "token.json")}
	if _, err := s.Load(); !errors.Is(err, googleauth.ErrNotSignedIn) {
		t.Fatalf("no file: %v", err)
	}
	// A token file others can read is made private when read.
	os.WriteFile(s.Path, []byte(`{"token_uri":"https://oauth2.googleapis.com/token","token":{"access_token":"a"}}`), 0o644)
	c, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(s.Path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o after load", st.Mode().Perm())
	}
	if got := c.RevokeURL(); got != "https://oauth2.googleapis.com/revoke" {
		t.Errorf("revoke URL %s", got)
	}
	os.WriteFile(s.Path, []byte(`{}`), 0o600)
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "auth login") {
		t.Errorf("damaged file: %v", err)
	}
	if err := s.Delete(); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(); err != nil {
		t.Errorf("second delete: %v", err)
	}
}

func TestTrusted(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]bool{
		"https://oauth2.googleapis.com/token":        true,
		"https://accounts.google.com/o/oauth2/auth":  true,
		"https://googleapis.com/x":                   true,
		"http://127.0.0.1:8080/token":                true,
		"http://oauth2.googleapis.com/token":         false,
		"https://evilgoogleapis.com/token":           false,
		"https://oauth2.googleapis.com.evil.example": false,
		"https://user@oauth2.googleapis.com/token":   false,
		"https://example.org/token":                  false,
		"":                                           false,
	} {
		if got := googleauth.Trusted(u); got != want {
			t.Errorf("Trusted(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestLoadRefusesUntrusted: a token file that names another token
// endpoint, or that is a link, is refused, and the link's target keeps its
// mode.
func TestLoadRefusesUntrusted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	evil := filepath.Join(dir, "evil.json")
	os.WriteFile(evil, []byte(`{"client_id":"x","token_uri":"https://collector.example/token","token":{"access_token":"a","refresh_token":"r"}}`), 0o600)
	if _, err := (googleauth.Store{Path: evil}).Load(); err == nil || !strings.Contains(err.Error(), "neither Google's nor this machine's") {
		t.Errorf("foreign token_uri: %v", err)
	}
	target := filepath.Join(dir, "shared.txt")
	os.WriteFile(target, []byte("x"), 0o644)
	link := filepath.Join(dir, "token.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if _, err := (googleauth.Store{Path: link}).Load(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("link: %v", err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o644 {
		t.Errorf("the link's target is now %v", st.Mode().Perm())
	}
}
