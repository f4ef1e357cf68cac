// Package googleauth signs annosheet in to Google as a user: the OAuth
// installed-app flow with a loopback redirect on 127.0.0.1 and PKCE, a
// token cache readable by the user alone (mode 0600, in the user's config
// folder), refreshed and saved again as it is used, and revocation on
// sign-out. It asks for one scope, drive.file: the files annosheet makes,
// nothing else of the user's Drive.
//
//	store, err := googleauth.DefaultStore()
//	err = store.SignIn(ctx, "client_secret.json", googleauth.LoginOptions{Open: googleauth.OpenBrowser, Notify: os.Stderr})
//	ts, err := store.TokenSource(ctx) // for sheets.Options.TokenSource
//	err = store.SignOut(ctx, nil, warn)
//
// SignIn is ReadClientSecret, Login and Store.Save in one, refusing to
// replace a sign-in to another token endpoint.
package googleauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	drive "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/internal/loopback"
)

// Scope is the one scope annosheet asks for: the files it creates (and
// files the user opens with it), nothing else of the user's Drive.
const Scope = drive.DriveFileScope

// ErrNotSignedIn means there is no cached sign-in.
var ErrNotSignedIn = errors.New("not signed in to Google")

// ErrExpired means Google no longer accepts the cached sign-in: it was
// revoked, or unused for too long.
var ErrExpired = errors.New("the Google sign-in has expired or was revoked: run 'annosheet auth login' again")

// MaxFileSize is the largest credential file annosheet reads: an OAuth
// client file, the token file, a service account key. Each is a few
// kilobytes (the console's client file some 400 bytes, a service account
// key some 2.5 KB), so 1 MiB is generous, and keeps a wrong or hostile
// file from exhausting memory.
const MaxFileSize = 1 << 20

// ReadClientSecret reads an OAuth client file as the Google Cloud console
// downloads it (a "Desktop app" client: {"installed": {...}}). A file over
// MaxFileSize, or one that is not a regular file, is refused unread.
func ReadClientSecret(path string) (*oauth2.Config, error) {
	b, err := boundedread.ReadFile(path, MaxFileSize, "a client secret file")
	if err != nil {
		return nil, fmt.Errorf("client secret: %w", err)
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("client secret %s: not JSON: %v", path, err)
	}
	var c *struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthURI      string `json:"auth_uri"`
		TokenURI     string `json:"token_uri"`
	}
	if raw, ok := f["installed"]; ok {
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("client secret %s: %v", path, err)
		}
	}
	if c == nil {
		if _, ok := f["web"]; ok {
			return nil, fmt.Errorf("client secret %s: this is a web application client; create a \"Desktop app\" OAuth client in the Google Cloud console and download its JSON", path)
		}
		return nil, fmt.Errorf("client secret %s: not an OAuth client file (expected an \"installed\" Desktop app client from the Google Cloud console)", path)
	}
	switch {
	case c.ClientID == "":
		return nil, fmt.Errorf("client secret %s: client_id is missing", path)
	case c.AuthURI == "" || c.TokenURI == "":
		return nil, fmt.Errorf("client secret %s: auth_uri or token_uri is missing", path)
	}
	for _, u := range []string{c.AuthURI, c.TokenURI} {
		if !Trusted(u) {
			return nil, fmt.Errorf("client secret %s: %q is neither Google's (https://*.google.com, https://*.googleapis.com) nor this machine's: annosheet sends the client secret and your sign-in only there", path, u)
		}
	}
	return &oauth2.Config{
		ClientID: c.ClientID, ClientSecret: c.ClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: c.AuthURI, TokenURL: c.TokenURI, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:   []string{Scope},
	}, nil
}

// LoginOptions tune Login.
type LoginOptions struct {
	// Open shows the consent page to the user (opens a browser); when it
	// fails or is nil, the user opens the printed link themselves.
	Open func(url string) error
	// Notify is where the link and progress are written.
	Notify io.Writer
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// Timeout bounds the wait for the user (default 5 minutes).
	Timeout time.Duration
	// HTTPClient talks to the token endpoint (default http.DefaultClient).
	HTTPClient *http.Client
}

// Login runs the installed-app flow: it listens on 127.0.0.1, sends the
// user to Google's consent page with a PKCE challenge and a random state,
// takes the code from the redirect and exchanges it with the verifier.
func Login(ctx context.Context, cfg *oauth2.Config, opt LoginOptions) (*oauth2.Token, error) {
	if opt.Timeout == 0 {
		opt.Timeout = 5 * time.Minute
	}
	if opt.Notify == nil {
		opt.Notify = io.Discard
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", opt.Port))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1 for Google's answer: %w", err)
	}
	defer ln.Close()
	c := *cfg
	c.RedirectURL = fmt.Sprintf("http://127.0.0.1:%d/", ln.Addr().(*net.TCPAddr).Port)
	state := randomString()
	verifier := oauth2.GenerateVerifier()
	link := c.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("prompt", "consent"))

	type answer struct {
		code string
		err  error
	}
	got := make(chan answer, 1)
	var once sync.Once
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/" || q.Get("state") != state {
			// Not Google's answer to this sign-in (a stale tab, a probe).
			http.Error(w, "annosheet: this is not the answer to the sign-in in progress", http.StatusBadRequest)
			return
		}
		var a answer
		switch {
		case q.Get("error") != "":
			a.err = fmt.Errorf("Google refused the sign-in: %s", q.Get("error"))
			if d := q.Get("error_description"); d != "" {
				a.err = fmt.Errorf("%w (%s)", a.err, d)
			}
		case q.Get("code") == "":
			a.err = errors.New("Google's answer had no authorization code")
		default:
			a.code = q.Get("code")
		}
		page := "annosheet is signed in to Google. You can close this tab."
		if a.err != nil {
			page = "annosheet could not sign in: " + a.err.Error()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>annosheet</title><p>%s</p>", html.EscapeString(page))
		// The page reaches the browser before the sign-in goes on and
		// the listener closes.
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		once.Do(func() { got <- a })
	})}
	go srv.Serve(ln)
	defer func() {
		// Let a page being written finish, briefly; then close.
		stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(stop) != nil {
			srv.Close()
		}
	}()

	fmt.Fprintf(opt.Notify, "Sign in to Google in your browser. If it does not open, open this link:\n\n  %s\n\nWaiting for Google's answer on %s ...\n", link, c.RedirectURL)
	if opt.Open != nil {
		if err := opt.Open(link); err != nil {
			fmt.Fprintf(opt.Notify, "(could not open a browser: %v)\n", err)
		}
	}
	timer := time.NewTimer(opt.Timeout)
	defer timer.Stop()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, fmt.Errorf("no answer from Google within %s; run 'annosheet auth login' again", opt.Timeout)
	}
	if a.err != nil {
		return nil, a.err
	}
	if opt.HTTPClient != nil {
		ctx = context.WithValue(ctx, oauth2.HTTPClient, opt.HTTPClient)
	}
	tok, err := c.Exchange(ctx, a.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("exchange the authorization code: %w", err)
	}
	if tok.RefreshToken == "" {
		fmt.Fprintln(opt.Notify, "warning: Google gave no refresh token; the sign-in lasts about an hour")
	}
	return tok, nil
}

func randomString() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Cache is what the token file holds: the OAuth client, so that a refresh
// needs no other file, and the token.
type Cache struct {
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret"`
	AuthURL      string        `json:"auth_uri"`
	TokenURL     string        `json:"token_uri"`
	Scopes       []string      `json:"scopes"`
	Token        *oauth2.Token `json:"token"`
}

// NewCache is the cache of a fresh sign-in.
func NewCache(cfg *oauth2.Config, tok *oauth2.Token) *Cache {
	return &Cache{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL, TokenURL: cfg.Endpoint.TokenURL, Scopes: cfg.Scopes, Token: tok}
}

// Config is the OAuth client of a cache.
func (c *Cache) Config() *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, Scopes: c.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: c.AuthURL, TokenURL: c.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
}

// RevokeURL is where the token is revoked: Google's token endpoint's
// sibling /revoke.
func (c *Cache) RevokeURL() string {
	u, err := url.Parse(c.TokenURL)
	if err != nil {
		return ""
	}
	u.Path = strings.TrimSuffix(u.Path, "/token") + "/revoke"
	u.RawQuery = ""
	return u.String()
}

// DefaultPath is the token file in the user's config folder, or in the
// folder ANNOSHEET_CONFIG_DIR names.
func DefaultPath() (string, error) {
	if dir := os.Getenv("ANNOSHEET_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "token.json"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config folder for the Google token: %w", err)
	}
	return filepath.Join(dir, "annosheet", "token.json"), nil
}

// Trusted says whether credentials may be sent to a URL: Google's own
// (https on google.com or googleapis.com and their subdomains), or this
// machine (a fake for tests and dry runs).
func Trusted(u string) bool {
	if loopback.URL(u) {
		return true
	}
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.User != nil {
		return false
	}
	h := strings.ToLower(p.Hostname())
	for _, d := range []string{"google.com", "googleapis.com"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// Store is the token file.
type Store struct{ Path string }

// Load reads the cache; ErrNotSignedIn when there is none. A file that
// others could read is made private first. A link is refused, and so is a
// file over MaxFileSize.
func (s Store) Load() (*Cache, error) {
	st, err := os.Lstat(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotSignedIn
	}
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		// A link is not followed: its target's mode is not ours to change.
		return nil, fmt.Errorf("%s is not a regular file (a link?); remove it and run 'annosheet auth login' again", s.Path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(s.Path, 0o600); err != nil {
			return nil, fmt.Errorf("%s is readable by others and cannot be made private: %w", s.Path, err)
		}
	}
	b, err := boundedread.ReadFile(s.Path, MaxFileSize, "a token file")
	if errors.Is(err, boundedread.ErrTooLarge) {
		return nil, fmt.Errorf("%w; remove it and run 'annosheet auth login' again", err)
	}
	if err != nil {
		return nil, err
	}
	var c Cache
	if err := json.Unmarshal(b, &c); err != nil || c.Token == nil || c.TokenURL == "" {
		return nil, fmt.Errorf("%s is not an annosheet token file; run 'annosheet auth login' again", s.Path)
	}
	for _, u := range []string{c.TokenURL, c.AuthURL} {
		if u != "" && !Trusted(u) {
			return nil, fmt.Errorf("%s names %q, which is neither Google's nor this machine's: annosheet sends tokens only there; run 'annosheet auth login' again", s.Path, u)
		}
	}
	return &c, nil
}

// Save writes the cache readable by the user alone (0600, in a 0700
// folder), replacing the file atomically.
func (s Store) Save(c *Cache) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(s.Path, true, 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	})
}

// Delete removes the token file; no file is not an error.
func (s Store) Delete() error {
	err := os.Remove(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// TokenSource gives the cached sign-in's tokens, refreshing them when they
// expire and saving each new token to the file.
func (s Store) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	c, err := s.Load()
	if err != nil {
		return nil, err
	}
	return &savingSource{store: s, cache: c, src: c.Config().TokenSource(ctx, c.Token), last: c.Token.AccessToken}, nil
}

// Refresh asks Google for a new access token now, whatever the saved one's
// expiry, and saves it: the one way to know that the sign-in still holds.
func (s Store) Refresh(ctx context.Context) (*oauth2.Token, error) {
	c, err := s.Load()
	if err != nil {
		return nil, err
	}
	if c.Token.RefreshToken == "" {
		return nil, fmt.Errorf("%w (the saved sign-in cannot be renewed)", ErrExpired)
	}
	expired := *c.Token
	expired.Expiry = time.Unix(1, 0)
	src := &savingSource{store: s, cache: c, src: c.Config().TokenSource(ctx, &expired), last: c.Token.AccessToken}
	return src.Token()
}

// savingSource saves each token it has not seen before.
type savingSource struct {
	mu    sync.Mutex
	store Store
	cache *Cache
	src   oauth2.TokenSource
	last  string
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		return nil, Explain(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.last {
		s.last = tok.AccessToken
		if tok.RefreshToken == "" {
			tok.RefreshToken = s.cache.Token.RefreshToken
		}
		s.cache.Token = tok
		if err := s.store.Save(s.cache); err != nil {
			return nil, fmt.Errorf("save the refreshed Google token: %w", err)
		}
	}
	return tok, nil
}

// Explain turns Google's refusals of a sign-in into ErrExpired; other
// errors are returned as they are.
func Explain(err error) error {
	if err == nil || errors.Is(err, ErrExpired) {
		return err
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.ErrorCode == "invalid_token") {
		return fmt.Errorf("%w (%s)", ErrExpired, re.ErrorCode)
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Code == http.StatusUnauthorized {
		return fmt.Errorf("%w (%s)", ErrExpired, ge.Message)
	}
	return err
}

// Revoke asks Google to forget the sign-in (its refresh token).
func Revoke(ctx context.Context, hc *http.Client, c *Cache) error {
	if hc == nil {
		hc = http.DefaultClient
	}
	tok := c.Token.RefreshToken
	if tok == "" {
		tok = c.Token.AccessToken
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.RevokeURL(), strings.NewReader(url.Values{"token": {tok}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("revoke the Google token: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&e)
		if e.Error == "invalid_token" {
			return nil // already revoked: the goal is met
		}
		return fmt.Errorf("revoke the Google token: %s %s %s", resp.Status, e.Error, e.Description)
	}
	return nil
}
