package sheets

import (
	"context"
	"errors"
	"fmt"
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

// Lines say who a signs in as, for a person: a service account's key and
// what it cannot do, or the user, the OAuth client, the token's file and
// how long Google accepts it (in local time).
func (a *Account) Lines() []string {
	if a.ServiceAccount != "" {
		return []string{
			fmt.Sprintf("service account %s (key %s, from %s)", a.ServiceAccount, a.KeyFile, EnvServiceAccount),
			"a service account cannot own spreadsheets: give generate --folder, a folder of a shared drive it can write to",
		}
	}
	who := a.Email
	if who == "" {
		who = "an account Google did not name"
	}
	return []string{
		fmt.Sprintf("signed in as %s, with OAuth client %s (scope drive.file); token in %s", who, a.ClientID, a.TokenFile),
		fmt.Sprintf("Google accepts it: access token valid until %s", a.Expiry.Local().Format(time.DateTime)),
	}
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
