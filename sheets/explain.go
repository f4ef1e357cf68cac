package sheets

import (
	"errors"
	"fmt"
	"net/http"
	"os"

	"google.golang.org/api/googleapi"

	"github.com/annosheet/annosheet/sheets/googleauth"
)

// Explain adds what to do to Google's refusals, on a line of their own:
// a service account key Google refused, a sign-in that expired or was
// revoked (googleauth.ErrExpired), a file outside the drive.file scope, a
// service account's want of Drive space, a refusal, a spreadsheet not
// found. The error is still wrapped; other errors, and nil, are returned
// as they are. Store's Write and Open explain their errors themselves.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	serviceAccount := os.Getenv(EnvServiceAccount) != ""
	var ge *googleapi.Error
	if serviceAccount && errors.As(err, &ge) && ge.Code == http.StatusUnauthorized {
		return fmt.Errorf("%w\n(Google refused the service account key in %s: check that the key is current and the account enabled)", err, EnvServiceAccount)
	}
	err = googleauth.Explain(err)
	if errors.As(err, &ge) {
		for _, item := range ge.Errors {
			switch item.Reason {
			case "appNotAuthorizedToFile":
				return fmt.Errorf("%w\n(annosheet asks Google only for the files it makes itself (the drive.file scope), and this file or folder is not one of them: make the spreadsheet in no folder and move it in Drive yourself, or use a folder annosheet can reach)", err)
			case "storageQuotaExceeded":
				if serviceAccount {
					return fmt.Errorf("%w\n(a service account owns no Drive space: make the spreadsheets in a folder of a shared drive where it is a member)", err)
				}
			}
		}
		switch ge.Code {
		case http.StatusForbidden:
			return fmt.Errorf("%w\n(Google refused: a quota, or no permission; a permission error needs the owner to share the spreadsheet or folder, and waiting will not help)", err)
		case http.StatusNotFound:
			return fmt.Errorf("%w\n(not found, or not open to annosheet: with the drive.file scope it reaches only the spreadsheets it made while signed in as the same account)", err)
		}
	}
	return err
}
