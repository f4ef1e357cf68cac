package sheets_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/googleauth"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// TestExplain checks what each of Google's refusals tells the user to
// do, in words that name no command line flag.
func TestExplain(t *testing.T) {
	notAuthorized := &googleapi.Error{Code: 403, Message: "The user has not granted the app 1 write access to the file F.", Errors: []googleapi.ErrorItem{{Reason: "appNotAuthorizedToFile"}}}
	noSpace := &googleapi.Error{Code: 403, Message: "The user's Drive storage quota has been exceeded.", Errors: []googleapi.ErrorItem{{Reason: "storageQuotaExceeded"}}}
	for _, tc := range []struct {
		name           string
		serviceAccount bool
		err            error
		is             error // what the explained error wraps
		want           string
	}{
		{name: "outside drive.file", err: notAuthorized, is: notAuthorized, want: "make the spreadsheet in no folder and move it in Drive yourself"},
		{name: "refused", err: &googleapi.Error{Code: 403, Message: "Quota exceeded"}, want: "waiting will not help"},
		{name: "not found", err: &googleapi.Error{Code: 404, Message: "Requested entity was not found."}, want: "drive.file scope"},
		{name: "user token refused", err: &googleapi.Error{Code: 401, Message: "Request had invalid authentication credentials."}, is: googleauth.ErrExpired, want: "run 'annosheet auth login' again"},
		{name: "grant revoked", err: &oauth2.RetrieveError{ErrorCode: "invalid_grant"}, is: googleauth.ErrExpired, want: "expired or was revoked"},
		{name: "service account key refused", serviceAccount: true, err: &googleapi.Error{Code: 401, Message: "Request had invalid authentication credentials."}, want: "Google refused the service account key in GOOGLE_APPLICATION_CREDENTIALS"},
		{name: "service account without space", serviceAccount: true, err: noSpace, want: "a folder of a shared drive where it is a member"},
		{name: "user without space", err: noSpace, want: "waiting will not help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := ""
			if tc.serviceAccount {
				key = "key.json"
			}
			t.Setenv(sheets.EnvServiceAccount, key)
			is := tc.is
			if is == nil {
				is = tc.err
			}
			got := sheets.Explain(fmt.Errorf("spreadsheet x: %w", tc.err))
			if !strings.Contains(got.Error(), tc.want) || !errors.Is(got, is) {
				t.Errorf("%v: got %q, want %q, wrapping %v", tc.err, got, tc.want, is)
			}
			if strings.Contains(got.Error(), "--") {
				t.Errorf("%v: %q names a flag", tc.err, got)
			}
		})
	}
	plain := errors.New("disk full")
	if sheets.Explain(plain) != plain {
		t.Error("an error not from Google was changed")
	}
	if sheets.Explain(nil) != nil {
		t.Error("no error became one")
	}
}

// TestStoreExplains: the Store's reads and writes say what to do about
// Google's refusals, and still wrap what they wrapped.
func TestStoreExplains(t *testing.T) {
	t.Setenv(sheets.EnvServiceAccount, "")
	_, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ctx := context.Background()
	s := sheets.Store{Client: sheets.SignInOnUse(sheets.Options{Endpoint: srv.URL, NoAuth: true}, func(string) {}), Endpoint: srv.URL}
	gone := backend.Location{Kind: backend.KindGSheets, ID: "fake-does-not-exist-0000000000", Endpoint: srv.URL}
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"open", func() error { _, _, err := s.Open(ctx, gone); return err }},
		{"rewrite", func() error { _, err := s.Write(ctx, legalPlan(t), gone, backend.WriteOptions{}); return err }},
	} {
		err := tc.do()
		var ge *googleapi.Error
		if !errors.Is(err, backend.ErrNotFound) || !errors.As(err, &ge) || !strings.Contains(err.Error(), "drive.file scope") {
			t.Errorf("%s of a missing spreadsheet: %v, want backend.ErrNotFound and Google's error, explained", tc.name, err)
		}
	}
}
