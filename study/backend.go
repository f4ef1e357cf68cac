package study

import (
	"context"
	"errors"
	"fmt"

	"github.com/annosheet/annosheet/backend"
)

// ErrNotFound is backend.ErrNotFound: a workbook that is not there (deleted,
// or a spreadsheet this sign-in cannot reach) has its units missing, and
// the study goes on.
var ErrNotFound = backend.ErrNotFound

// Files is a backend of workbook files (XLSX, and what it converts), as
// xlsx.Store is.
type Files interface {
	// Readable says whether a file met in a folder is a workbook to read;
	// when it is a spreadsheet it cannot read, why says so (ok false, why
	// set); a file that is no spreadsheet at all gives false and "".
	Readable(name string) (ok bool, why string)
	// Open reads the workbook at a location. Its Name is used as the
	// record's source; messages name the path as the user gave it.
	Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error)
}

// Spreadsheets is a backend of online spreadsheets (Google Sheets), as
// sheets.Store is.
type Spreadsheets interface {
	// ID finds a spreadsheet's ID in a link, or the ID itself.
	ID(link string) (string, bool)
	Open(ctx context.Context, at backend.Location) (*backend.Grid, func() error, error)
}

// Backends are the backends a study can reach. Either may be nil when the
// sources need none of its kind. Endpoint is the API Spreadsheets reaches
// ("" for Google's): a spreadsheet the manifest records elsewhere is an
// EndpointError, not a missing one.
type Backends struct {
	Files        Files
	Spreadsheets Spreadsheets
	Endpoint     string
}

// EndpointError says a study's spreadsheet lives on another API than the
// one given (a dry run's fake, or Google's own).
type EndpointError struct {
	Spreadsheet    string // its link
	Recorded, Used string // "" for Google's
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("the spreadsheet %s is on %s, not on %s", e.Spreadsheet, endpointName(e.Recorded), endpointName(e.Used))
}

// endpointName is an endpoint as messages name it.
func endpointName(e string) string {
	if e == "" {
		return "Google"
	}
	return e
}

// ErrConflict is wrapped by the problem of a unit that two copies of its
// batch answer differently.
var ErrConflict = errors.New("copies disagree")

// connect connects a store that connects (as sheets.Store signs in at
// Connect) before anything is read or written: a study whose store cannot
// be reached, or not with these credentials, fails first.
func connect(ctx context.Context, store backend.Store) error {
	if c, ok := store.(interface{ Connect(context.Context) error }); ok {
		return c.Connect(ctx)
	}
	return nil
}
