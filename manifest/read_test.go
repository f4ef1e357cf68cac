package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/boundedread"
	"github.com/annosheet/annosheet/testkit/fifo"
)

// TestReadBounded: a manifest over MaxSize is refused unread (a sparse
// file costs no disk), naming the file and the limit; so is a folder; a
// named pipe is refused without waiting for a writer.
func TestReadBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t testing.TB, p string)
		is   error
		want string // the message, with P for the file's name
	}{
		{name: "over MaxSize", make: func(t testing.TB, p string) {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, MaxSize+1); err != nil {
				t.Fatal(err)
			}
		}, is: boundedread.ErrTooLarge, want: "P: larger than the 256 MiB a manifest may be"},
		{name: "folder", make: func(t testing.TB, p string) { os.Mkdir(p, 0o755) },
			is: boundedread.ErrNotRegular, want: "read P: is a directory"},
		{name: "named pipe", make: fifo.Make,
			is: boundedread.ErrNotRegular, want: "P: it is not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), FileName)
			tc.make(t, p)
			var err error
			fifo.Within(t, 10*time.Second, func() { _, err = Read(p) })
			if !errors.Is(err, tc.is) {
				t.Errorf("error %v, want one wrapping %v", err, tc.is)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(strings.ReplaceAll(tc.want, "P", p), got); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadGenerated: a manifest as generate writes it is read.
func TestReadGenerated(t *testing.T) {
	t.Parallel()
	m, err := Read(filepath.Join("testdata", "preference-likert.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Template.Name != "preference-likert" || len(m.Batches) != 2 || len(m.Orders) != 3 {
		t.Errorf("read %s with %d batches and %d orders", m.Template.Name, len(m.Batches), len(m.Orders))
	}
}

// TestHashFileNotRegular: an input a manifest names that is a named pipe
// or a device (which would never end) is refused at once.
func TestHashFileNotRegular(t *testing.T) {
	t.Parallel()
	pipe := filepath.Join(t.TempDir(), "in.jsonl")
	fifo.Make(t, pipe)
	for _, p := range []string{pipe, "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var err error
		fifo.Within(t, 10*time.Second, func() { _, err = HashFile(p) })
		if !errors.Is(err, boundedread.ErrNotRegular) {
			t.Errorf("HashFile(%s) = %v, want ErrNotRegular", p, err)
		}
	}
}
