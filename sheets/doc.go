// Package sheets is the Google Sheets backend: it renders a backend.Plan as
// a spreadsheet with the Sheets and Drive APIs (google.golang.org/api,
// imported as sheetsapi and drive), and reads a filled spreadsheet back
// into a grid for pull. Requests wait their turn to stay within Google's
// per-minute quotas (Pace), and those that Google refuses for the moment
// are retried with backoff; the whole workbook is written in a small
// number of batched requests.
//
//	c, err := sheets.New(ctx, sheets.Options{TokenSource: ts})
//	w, err := c.Write(ctx, plan, sheets.WriteOptions{Share: []string{"ann@example.org"}})
//	fmt.Println(w.URL)
//	g, closeFn, err := c.Open(ctx, w.ID) // for decode.Pull
//
// SignIn connects with the credentials this machine has (a service
// account key, or the token 'annosheet auth login' saved), sending them to
// Google or to this machine only (CheckEndpoint); Status says who that
// is. Store, the backend.Store of Google Sheets, signs in on first use
// with SignInOnUse as its Client, and its errors say what to do about
// Google's refusals (Explain).
//
// It knows nothing about templates: everything it writes is in the plan.
// The in-process fake of the Sheets API that the tests use is in package
// sheets/sheetsfake.
package sheets
