package sheets

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/annosheet/annosheet/sheets/googleauth"
)

// Account is who SignIn signs in as, as Status finds it: a service
// account, or a user's saved sign-in.
type Account struct {
	// ServiceAccount is the address of the service account whose key
	// GOOGLE_APPLICATION_CREDENTIALS names, and KeyFile that key; the
	// fields below are then empty.
	ServiceAccount, KeyFile string
	// Email is the signed-in user's address, "" when Google did not say
	// it.
	Email string
	// ClientID is the OAuth client the user signed in with, and TokenFile
	// where the token is kept.
	ClientID, TokenFile string
	// Expiry is when the access token Google has just given expires.
	Expiry time.Time
}

// Status says who SignIn signs in as. A service account is read from its
// key alone. A user's saved sign-in is renewed at Google now, whatever
// its token's expiry: the one way to know that it still holds (it may
// have been revoked; then the error wraps googleauth.ErrExpired). The
// user's address is asked of Drive at o's endpoint, and left out when
// that fails. Without either sign-in it is ErrNoCredentials.
func Status(ctx context.Context, o Options) (*Account, error) {
	if key := os.Getenv(EnvServiceAccount); key != "" {
		email, err := ServiceAccountEmail(key)
		if err != nil {
			return nil, err
		}
		return &Account{ServiceAccount: email, KeyFile: key}, nil
	}
	store, err := googleauth.DefaultStore()
	if err != nil {
		return nil, err
	}
	c, err := store.Load()
	if errors.Is(err, googleauth.ErrNotSignedIn) {
		return nil, ErrNoCredentials
	}
	if err != nil {
		return nil, err
	}
	tok, err := store.Refresh(ctx)
	if err != nil {
		return nil, err
	}
	a := &Account{ClientID: c.ClientID, TokenFile: store.Path, Expiry: tok.Expiry}
	if cl, err := SignIn(ctx, o, func(string) {}); err == nil {
		if about, err := cl.Drive.About.Get().Fields("user(emailAddress)").Context(ctx).Do(); err == nil && about.User != nil {
			a.Email = about.User.EmailAddress
		}
	}
	return a, nil
}
