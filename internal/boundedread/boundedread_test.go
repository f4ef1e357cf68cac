package boundedread

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/testkit/fifo"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A sparse file of 10 GiB costs no disk; it must be refused unread.
	sparse := filepath.Join(dir, "sparse.json")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 10<<30); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
		want  []byte
		err   error // a full value for a *TooLargeError, else a sentinel
	}{
		{name: "empty", path: write("empty", nil), limit: 10, want: []byte{}},
		{name: "under", path: write("under", []byte("abc")), limit: 10, want: []byte("abc")},
		{name: "at the limit", path: write("at", []byte("0123456789")), limit: 10, want: []byte("0123456789")},
		{name: "one over", path: write("over", []byte("0123456789x")), limit: 10,
			err: &TooLargeError{File: filepath.Join(dir, "over"), Limit: 10, What: "a thing"}},
		{name: "zero limit", path: write("zero", []byte("x")), limit: 0,
			err: &TooLargeError{File: filepath.Join(dir, "zero"), Limit: 0, What: "a thing"}},
		{name: "sparse", path: sparse, limit: 64 << 20,
			err: &TooLargeError{File: sparse, Limit: 64 << 20, What: "a thing"}},
		{name: "missing", path: filepath.Join(dir, "missing"), limit: 10, err: fs.ErrNotExist},
		{name: "folder", path: dir, limit: 10, err: ErrNotRegular},
		{name: "folder, as os says", path: dir, limit: 10, err: syscall.EISDIR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadFile(tc.path, tc.limit, "a thing")
			var tl *TooLargeError
			switch {
			case tc.err == nil:
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !bytes.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			case errors.As(tc.err, &tl):
				if diff := cmp.Diff(tc.err, err); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if !errors.Is(err, ErrTooLarge) {
					t.Errorf("%v does not wrap ErrTooLarge", err)
				}
			default:
				if !errors.Is(err, tc.err) {
					t.Errorf("error %v, want %v", err, tc.err)
				}
			}
			if err != nil && !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q does not name %s", err, tc.path)
			}
		})
	}
}

// TestReadFileNotRegular: a named pipe with no writer and a device are
// refused at once, saying what they are.
func TestReadFileNotRegular(t *testing.T) {
	t.Parallel()
	pipe := filepath.Join(t.TempDir(), "manifest.json")
	fifo.Make(t, pipe)
	for _, tc := range []struct{ path, want string }{
		{pipe, pipe + ": it is not a regular file (a named pipe)"},
		{"/dev/zero", "/dev/zero: it is not a regular file (a device)"},
	} {
		if st, err := os.Stat(tc.path); err != nil || st.Mode()&fs.ModeDevice == 0 && st.Mode()&fs.ModeNamedPipe == 0 {
			continue // no /dev/zero here
		}
		var err error
		fifo.Within(t, 10*time.Second, func() { _, err = ReadFile(tc.path, 1<<20, "a manifest") })
		if !errors.Is(err, ErrNotRegular) || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestOpenFIFONonBlocking: were a pipe to pass the first look, opening it
// would still not wait for a writer.
func TestOpenFIFONonBlocking(t *testing.T) {
	t.Parallel()
	if nonblock == 0 {
		t.Skip("no O_NONBLOCK here")
	}
	pipe := filepath.Join(t.TempDir(), "pipe")
	fifo.Make(t, pipe)
	var err error
	fifo.Within(t, 10*time.Second, func() {
		var f *os.File
		if f, err = os.OpenFile(pipe, os.O_RDONLY|nonblock, 0); err == nil {
			f.Close()
		}
	})
	if err != nil {
		t.Errorf("open: %v", err)
	}
}

func TestTooLargeErrorMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *TooLargeError
		want string
	}{
		{&TooLargeError{File: "manifest.json", Limit: 256 << 20, What: "a manifest"}, "manifest.json: larger than the 256 MiB a manifest may be"},
		{&TooLargeError{File: "data.jsonl", Line: 3, Limit: 64 << 20, What: "a record"}, "data.jsonl:3: line longer than the 64 MiB a record may be"},
		{&TooLargeError{File: "x", Limit: 1000}, "x: larger than the limit of 1000 bytes"},
		{&TooLargeError{File: "x", Limit: 1 << 30, What: "a y"}, "x: larger than the 1 GiB a y may be"},
		{&TooLargeError{File: "x", Limit: 3 << 10, What: "a y"}, "x: larger than the 3 KiB a y may be"},
		{&TooLargeError{File: "x", Limit: 1, What: "a y"}, "x: larger than the 1 byte a y may be"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// line is what Next returned: a line, or the line number of one over
// budget.
type line struct {
	Text string
	Over int
}

func readLines(l *Lines) ([]line, error) {
	var got []line
	for {
		b, err := l.Next()
		var tl *TooLargeError
		switch {
		case err == io.EOF:
			return got, nil
		case errors.As(err, &tl):
			if tl.Line != l.Line() {
				return got, errors.New("error and Line() disagree")
			}
			got = append(got, line{Over: tl.Line})
		case err != nil:
			return got, err
		default:
			got = append(got, line{Text: string(b)})
		}
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10000) // longer than the 4 KiB buffer
	for _, tc := range []struct {
		name  string
		in    string
		limit int64
		want  []line
	}{
		{name: "empty", in: "", limit: 5},
		{name: "one without newline", in: "abc", limit: 5, want: []line{{Text: "abc"}}},
		{name: "newlines", in: "a\n\nb\n", limit: 5, want: []line{{Text: "a\n"}, {Text: "\n"}, {Text: "b\n"}}},
		{name: "at the limit", in: "12345\n12345", limit: 5, want: []line{{Text: "12345\n"}, {Text: "12345"}}},
		{name: "CRLF counts the CR", in: "12345\r\nab\r\n", limit: 5, want: []line{{Over: 1}, {Text: "ab\r\n"}}},
		{name: "over, then on", in: "a\n123456\nb\n", limit: 5, want: []line{{Text: "a\n"}, {Over: 2}, {Text: "b\n"}}},
		{name: "over at the end", in: "a\n123456", limit: 5, want: []line{{Text: "a\n"}, {Over: 2}}},
		{name: "long lines", in: long + "\n" + long + "x\n" + long, limit: 10000,
			want: []line{{Text: long + "\n"}, {Over: 2}, {Text: long}}},
		{name: "zero limit", in: "\na\n\n", limit: 0, want: []line{{Text: "\n"}, {Over: 2}, {Text: "\n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readLines(NewLines(strings.NewReader(tc.in), "in.jsonl", tc.limit, "a record"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLinesError(t *testing.T) {
	t.Parallel()
	l := NewLines(iotest.DataErrReader(io.MultiReader(strings.NewReader("a\nhalf"), iotest.ErrReader(io.ErrClosedPipe))), "in.jsonl", 5, "a record")
	if b, err := l.Next(); string(b) != "a\n" || err != nil {
		t.Fatalf("first line %q, %v", b, err)
	}
	for range 2 {
		if b, err := l.Next(); b != nil || err != io.ErrClosedPipe {
			t.Errorf("cut-off line %q, %v; want the reader's error", b, err)
		}
	}
	if l.Line() != 1 {
		t.Errorf("Line %d after the error, want 1", l.Line())
	}
}

// TestLinesMessage: the error names the file, the line and the limit.
func TestLinesMessage(t *testing.T) {
	t.Parallel()
	l := NewLines(strings.NewReader("ok\n"+strings.Repeat("x", 2<<20)), "data.jsonl", 1<<20, "a record")
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := l.Next()
	if want := "data.jsonl:2: line longer than the 1 MiB a record may be"; err == nil || err.Error() != want || !errors.Is(err, ErrTooLarge) {
		t.Errorf("error %v, want %q wrapping ErrTooLarge", err, want)
	}
}

// TestReadFileErrorsAsOS: a file that is missing or a folder gets the
// error os.ReadFile gives, so that messages keep their text.
func TestReadFileErrorsAsOS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "missing"), dir} {
		_, want := os.ReadFile(p)
		_, got := ReadFile(p, 10, "a thing")
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: error %v, want %v", p, got, want)
		}
	}
}
