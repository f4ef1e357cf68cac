package sheets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/sheets/googleauth"
)

// EnvServiceAccount names a service account key, as for every Google
// client library.
const EnvServiceAccount = "GOOGLE_APPLICATION_CREDENTIALS"

// IsGoogle reports whether an endpoint is an https endpoint of Google's
// (https://*.googleapis.com): with IsLoopback, the only places
// credentials are sent.
func IsGoogle(endpoint string) bool {
	u, err := url.Parse(endpoint)
	return err == nil && u.Scheme == "https" && (u.Hostname() == "googleapis.com" || strings.HasSuffix(u.Hostname(), ".googleapis.com"))
}

// CheckEndpoint refuses the endpoints o may not call: calls without
// signing in go only to a loopback endpoint (a fake of the Sheets API),
// wrapping ErrNoAuthEndpoint otherwise, and credentials only to Google
// (IsGoogle) or to this machine (IsLoopback), wrapping ErrForeignEndpoint
// otherwise. SignIn checks it before it reads any credentials.
func CheckEndpoint(o Options) error {
	switch {
	case o.NoAuth && o.Endpoint == "":
		return fmt.Errorf("%w, not to Google", ErrNoAuthEndpoint)
	case o.NoAuth && !IsLoopback(o.Endpoint):
		return fmt.Errorf("%w, not to %s", ErrNoAuthEndpoint, o.Endpoint)
	case !o.NoAuth && o.Endpoint != "" && !IsLoopback(o.Endpoint) && !IsGoogle(o.Endpoint):
		return fmt.Errorf("endpoint %s: %w", o.Endpoint, ErrForeignEndpoint)
	}
	return nil
}

// SignIn connects as New does, with the credentials this machine has
// when o names none: a service account key in GOOGLE_APPLICATION_CREDENTIALS,
// else the token 'annosheet auth login' saved (ErrNoCredentials without
// either). note is told which account signs in. An endpoint CheckEndpoint
// refuses is refused first, before any credentials are read.
func SignIn(ctx context.Context, o Options, note func(string)) (*Client, error) {
	if err := CheckEndpoint(o); err != nil {
		return nil, err
	}
	if !o.NoAuth && o.CredentialsFile == "" && o.TokenSource == nil {
		if key := os.Getenv(EnvServiceAccount); key != "" {
			email, err := ServiceAccountEmail(key)
			if err != nil {
				return nil, err
			}
			note(fmt.Sprintf("signing in as service account %s (%s)", email, EnvServiceAccount))
			o.CredentialsFile = key
		} else {
			store, err := googleauth.DefaultStore()
			if err != nil {
				return nil, err
			}
			ts, err := store.TokenSource(ctx)
			if errors.Is(err, googleauth.ErrNotSignedIn) {
				return nil, ErrNoCredentials
			}
			if err != nil {
				return nil, err
			}
			o.TokenSource = ts
		}
	}
	return New(ctx, o)
}

// ServiceAccountEmail reads the account a service account key is for.
// The key is a credential file like the others, bounded alike.
func ServiceAccountEmail(path string) (string, error) {
	b, err := boundedread.ReadFile(path, googleauth.MaxFileSize, "a service account key")
	if err != nil {
		return "", fmt.Errorf("%s: %w", EnvServiceAccount, err)
	}
	var k struct {
		Type  string `json:"type"`
		Email string `json:"client_email"`
	}
	if err := json.Unmarshal(b, &k); err != nil || k.Type != "service_account" || k.Email == "" {
		return "", fmt.Errorf("%s=%s: not a service account key (a JSON key file with type \"service_account\")", EnvServiceAccount, path)
	}
	return k.Email, nil
}

// SignInOnUse is a Store's Client that signs in with SignIn(ctx, o, note)
// at its first call and gives the same client at every call after it: a
// command that may never reach a spreadsheet (every source a file) needs
// no sign-in. A sign-in that fails is tried again at the next call.
func SignInOnUse(o Options, note func(string)) func(context.Context) (*Client, error) {
	var (
		mu     sync.Mutex
		client *Client
	)
	return func(ctx context.Context) (*Client, error) {
		mu.Lock()
		defer mu.Unlock()
		if client == nil {
			c, err := SignIn(ctx, o, note)
			if err != nil {
				return nil, err
			}
			client = c
		}
		return client, nil
	}
}

// SaveSignIn signs in with the OAuth client file at clientSecret
// (googleauth.Store.SignIn) and saves the token where SignIn finds it
// (googleauth.DefaultStore); it returns the token file's path.
func SaveSignIn(ctx context.Context, clientSecret string, opt googleauth.LoginOptions) (string, error) {
	store, err := googleauth.DefaultStore()
	if err != nil {
		return "", err
	}
	if err := store.SignIn(ctx, clientSecret, opt); err != nil {
		return "", err
	}
	return store.Path, nil
}

// SignOut revokes the sign-in SaveSignIn saved and deletes its token file
// (googleauth.Store.SignOut, warn told of a revocation that failed); it
// returns the deleted file's path, or "" and no error when there was no
// sign-in to undo.
func SignOut(ctx context.Context, warn func(error)) (string, error) {
	store, err := googleauth.DefaultStore()
	if err != nil {
		return "", err
	}
	err = store.SignOut(ctx, nil, warn)
	if errors.Is(err, googleauth.ErrNotSignedIn) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return store.Path, nil
}
