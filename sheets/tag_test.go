package sheets_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// cancelAfterCreate ends a run as soon as the answer to Drive's create
// arrives: Ctrl-C after the spreadsheet is made, before it is known.
type cancelAfterCreate struct {
	base   http.RoundTripper
	cancel context.CancelFunc
}

func (c cancelAfterCreate) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if r.Method == http.MethodPost && r.URL.Path == "/drive/v3/files" {
		c.cancel()
	}
	return resp, err
}

// TestTagFindsLostCreate: a run whose create was carried out but whose
// answer was lost, and which was then stopped before it could look for
// the spreadsheet, leaves it behind unrecorded; a later Write of the same
// tag finds it and writes into it, as into an existing spreadsheet,
// instead of making another. Another tag makes its own.
func TestTagFindsLostCreate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		sharedDrive bool
		folder      bool
	}{
		{"my drive", false, false},
		{"folder", false, true},
		{"shared drive", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const tag = "0123456789abcdef/ann1@example.org-b01"
			fake, srv, err := sheetsfake.Start(sheetsfake.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			var opt sheets.WriteOptions
			if tc.folder {
				opt.Folder = fake.AddFolder("Study", tc.sharedDrive)
			}
			opt.Tag = tag
			w := &waits{}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stopped, err := sheets.New(ctx, sheets.Options{Endpoint: srv.URL, NoAuth: true, Retry: sheets.Retry{Sleep: w.sleep},
				Transport: cancelAfterCreate{base: http.DefaultTransport, cancel: cancel}})
			if err != nil {
				t.Fatal(err)
			}
			fake.Inject(sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 503, Lost: true})
			if got, err := stopped.Write(ctx, legalPlan(t), opt); err == nil {
				t.Fatalf("the stopped run made %s", got.ID)
			}
			orphans := fake.Spreadsheets()
			if len(orphans) != 1 {
				t.Fatalf("the stopped run left %d spreadsheets, want the 1 it could not record", len(orphans))
			}

			c, err := sheets.New(context.Background(), sheets.Options{Endpoint: srv.URL, NoAuth: true, Retry: sheets.Retry{Sleep: w.sleep}})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var created []string
			opt.Created = func(id, _ string) error {
				mu.Lock()
				defer mu.Unlock()
				created = append(created, id)
				return nil
			}
			got, err := c.Write(context.Background(), legalPlan(t), opt)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != orphans[0] || !cmp.Equal(fake.Spreadsheets(), orphans) {
				t.Fatalf("the same tag wrote %s; the fake holds %v, want only %s", got.ID, fake.Spreadsheets(), orphans[0])
			}
			if !cmp.Equal(created, orphans) {
				t.Errorf("Created was told of %v, want %v", created, orphans)
			}
			if tc.folder {
				if parents, _, _, _ := fake.FileInfo(got.ID); !cmp.Equal(parents, []string{opt.Folder}) {
					t.Errorf("parents %v, want %s", parents, opt.Folder)
				}
			}

			// As a clean write makes it.
			_, clean, _ := start(t, sheets.Retry{})
			want, err := clean.Write(context.Background(), legalPlan(t), sheets.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(snapshot(t, clean, want.ID), snapshot(t, c, got.ID)); diff != "" {
				t.Errorf("the found spreadsheet differs from a clean one (-clean +found):\n%s", diff)
			}

			// Once more with the same tag: the same spreadsheet again.
			// Another tag makes its own.
			if again, err := c.Write(context.Background(), legalPlan(t), opt); err != nil || again.ID != got.ID {
				t.Fatalf("the same tag again: %v, %v", again, err)
			}
			opt.Tag, opt.Created = tag+"x", nil
			other, err := c.Write(context.Background(), legalPlan(t), opt)
			if err != nil {
				t.Fatal(err)
			}
			if other.ID == got.ID || len(fake.Spreadsheets()) != 2 {
				t.Errorf("another tag wrote %s; the fake holds %v", other.ID, fake.Spreadsheets())
			}
		})
	}
}

// TestTagLookupStopped: a run stopped while it looks for its tag makes
// nothing, and says why.
func TestTagLookupStopped(t *testing.T) {
	t.Parallel()
	fake, c, _ := start(t, sheets.Retry{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Write(ctx, legalPlan(t), sheets.WriteOptions{Tag: "s/b01"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Write: %v, want it stopped", err)
	}
	if got := fake.Spreadsheets(); len(got) != 0 {
		t.Errorf("the fake holds %v", got)
	}
}
