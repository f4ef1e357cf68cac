package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/internal/boundedread"
)

// TestReadBounded: a manifest over MaxSize is refused unread (a sparse
// file costs no disk), naming the file and the limit; so is a folder; a
// named pipe is refused without waiting for a writer.
func TestReadBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge", FileName)
	os.Mkdir(filepath.Dir(huge), 0o755)
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxSize+1); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo", FileName)
	os.Mkdir(filepath.Dir(fifo), 0o755)
	for _, tc := range []struct {
		name, path string
		fifo       bool
		want       string
		is         error
	}{
		{name: "over MaxSize", path: huge, is: boundedread.ErrTooLarge,
			want: huge + ": larger than the 256 MiB a manifest may be"},
		{name: "folder", path: dir, is: boundedread.ErrNotRegular,
			want: dir + ": it is not a regular file (a folder)"},
		{name: "named pipe", path: fifo, fifo: true, is: boundedread.ErrNotRegular,
			want: fifo + ": it is not a regular file (a named pipe)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.fifo {
				if runtime.GOOS != "linux" {
					t.Skip("named pipes as on Linux")
				}
				if err := syscall.Mkfifo(tc.path, 0o644); err != nil {
					t.Skipf("no named pipes here: %v", err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := Read(tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.is) {
					t.Errorf("error %v, want one wrapping %v", err, tc.is)
				}
				if diff := cmp.Diff(tc.want, errString(err)); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Read blocks")
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
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
