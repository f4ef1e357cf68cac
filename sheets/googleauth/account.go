package googleauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
)

// DefaultStore is the token file at DefaultPath.
func DefaultStore() (Store, error) {
	p, err := DefaultPath()
	return Store{Path: p}, err
}

// OtherSignInError is the refusal to replace a saved sign-in to another
// token endpoint: a dry run's sign-in (to a fake on this machine) must not
// silently replace the real one, nor the real one a dry run's.
type OtherSignInError struct {
	// Path is the token file, TokenURL the token endpoint of the sign-in
	// it holds.
	Path, TokenURL string
}

func (e *OtherSignInError) Error() string {
	return fmt.Sprintf("%s holds a sign-in to %s; run 'annosheet auth logout' first, or give this one its own folder with ANNOSHEET_CONFIG_DIR", e.Path, e.TokenURL)
}

// SignIn signs in with the OAuth client file at clientSecret (see
// ReadClientSecret and Login) and saves the token in the store, readable
// by the user alone. A store that holds a sign-in to another token
// endpoint is left as it is, and the refusal is an *OtherSignInError.
func (s Store) SignIn(ctx context.Context, clientSecret string, opt LoginOptions) error {
	cfg, err := ReadClientSecret(clientSecret)
	if err != nil {
		return err
	}
	if old, err := s.Load(); err == nil && old.TokenURL != cfg.Endpoint.TokenURL {
		return &OtherSignInError{Path: s.Path, TokenURL: old.TokenURL}
	}
	tok, err := Login(ctx, cfg, opt)
	if err != nil {
		return err
	}
	if err := s.Save(NewCache(cfg, tok)); err != nil {
		return fmt.Errorf("save the token: %w", err)
	}
	return nil
}

// SignOut revokes the saved sign-in at Google (Revoke, through hc) and
// deletes the token file; it is ErrNotSignedIn, and does nothing, when
// there is none. A revocation that fails does not keep the token: warn is
// told why (when it is not nil), and the file is deleted all the same, since the user can
// remove annosheet's access in their Google account too. A token file
// that cannot be read is deleted unrevoked.
func (s Store) SignOut(ctx context.Context, hc *http.Client, warn func(error)) error {
	c, err := s.Load()
	if errors.Is(err, ErrNotSignedIn) {
		return err
	}
	if err == nil {
		if rerr := Revoke(ctx, hc, c); rerr != nil && warn != nil {
			warn(fmt.Errorf("%w; the token is deleted here, and you can remove annosheet's access in your Google account's security settings", rerr))
		}
	}
	return s.Delete()
}

// OpenBrowser opens a link in the user's browser, as LoginOptions.Open
// does; it does not wait for the browser.
func OpenBrowser(link string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", link)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", link)
	default:
		cmd = exec.Command("xdg-open", link)
	}
	return cmd.Start()
}
