// Package boundedread reads untrusted files within a budget: a whole file
// of at most so many bytes, or a file's lines of at most so many bytes
// each. What is over budget is refused with an error naming the file (and
// the line) and the limit, before more than the limit is held in memory.
// Only regular files are read: a folder, a device or a named pipe is
// refused, and a named pipe is refused without waiting for a writer.
//
//	b, err := boundedread.ReadFile("study/manifest.json", 256<<20, "a manifest")
//	if errors.Is(err, boundedread.ErrTooLarge) {
//		// study/manifest.json: larger than the 256 MiB a manifest may be
//	}
package boundedread

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// ErrTooLarge is what a *TooLargeError wraps: a file or a line is over its
// budget.
var ErrTooLarge = errors.New("over its size limit")

// ErrNotRegular is returned, wrapped with the file's name, for a folder, a
// named pipe, a device or a socket, which a reader of files never reads.
var ErrNotRegular = errors.New("it is not a regular file")

// errIsDir is a folder's error: the one os.ReadFile gives, which also
// wraps ErrNotRegular.
type errIsDir struct{}

func (errIsDir) Error() string { return syscall.EISDIR.Error() }

func (errIsDir) Is(target error) bool { return target == ErrNotRegular || target == syscall.EISDIR }

// TooLargeError says that a file, or one line of it, is over its budget.
type TooLargeError struct {
	File  string // as the caller named it
	Line  int    // 1-based; 0 when the whole file is over budget
	Limit int64  // in bytes
	What  string // what the file or line holds, for the message: "a manifest"
}

// Error reads, for a file and for a line:
//
//	study/manifest.json: larger than the 256 MiB a manifest may be
//	data.jsonl:3: line longer than the 64 MiB a record may be
func (e *TooLargeError) Error() string {
	var b bytes.Buffer
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line) + ": line longer than ")
	} else {
		b.WriteString(": larger than ")
	}
	if e.What != "" {
		fmt.Fprintf(&b, "the %s %s may be", Size(e.Limit), e.What)
	} else {
		fmt.Fprintf(&b, "the limit of %s", Size(e.Limit))
	}
	return b.String()
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Size writes a number of bytes as people read a limit: "64 MiB", "1 KiB",
// "1000 bytes".
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Open opens a regular file (through links) for reading. Anything else is
// an error wrapping ErrNotRegular and saying what the file is; a folder's
// is the error os.ReadFile gives, which wraps syscall.EISDIR too. A named
// pipe is opened without blocking, so that a pipe swapped in for the file
// after the first look is refused too, never waited on.
func Open(path string) (*os.File, error) {
	// Look first, so that a device is never opened at all; a file that
	// cannot be looked at gets the error of opening it, as os.ReadFile
	// gives.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// notRegular is the error for a file that is not a regular file: for a
// folder, the one os.ReadFile gives ("read PATH: is a directory").
func notRegular(path string, m os.FileMode) error {
	if m.IsDir() {
		return &fs.PathError{Op: "read", Path: path, Err: errIsDir{}}
	}
	return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, Kind(m))
}

// Kind names what a file of this mode is, in messages: "a folder", "a
// symbolic link", "a named pipe", "a socket", "a device", "a file".
func Kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a file"
	}
	return "a special file"
}

// ReadFile reads the regular file path whole, if it holds at most limit
// bytes; what says what it holds, for the message. A larger file is a
// *TooLargeError: one that is larger when it is opened is refused without
// reading it, and one that grows while it is read is refused once limit+1
// bytes are read. Other errors are those of package os, which name the
// file, or wrap ErrNotRegular.
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := &TooLargeError{File: path, Limit: limit, What: what}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, tooLarge
	}
	// The size is a hint only: the file may change while it is read.
	b := make([]byte, 0, st.Size()+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(int64(cap(b)), limit+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return nil, tooLarge
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Lines reads a file's lines, each of at most a budget of bytes, holding
// no more than one line (and a buffer) in memory however long the lines
// are.
type Lines struct {
	r     *bufio.Reader
	file  string
	limit int64
	what  string
	line  int
	buf   []byte
	err   error
}

// NewLines reads the lines of r, the content of the named file, each of at
// most limit bytes besides its line ending; what says what a line holds,
// for the message. A *bufio.Reader of at least 4 KiB is read directly, so
// that what was peeked at in it is not lost.
func NewLines(r io.Reader, file string, limit int64, what string) *Lines {
	return &Lines{r: bufio.NewReaderSize(r, 4096), file: file, limit: limit, what: what}
}

// Next returns the next line with its line ending, if it has one; the
// slice is valid until the next call. After the last line it returns
// io.EOF. A line longer than the limit is read to its end without being
// kept and is returned as a *TooLargeError naming its line; the next call
// goes on with the line after it. An error of the reader ends the lines:
// the line it cuts off is not returned, and the error is returned again by
// every later call.
func (l *Lines) Next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	l.buf = l.buf[:0]
	read, over := false, false
	for {
		chunk, err := l.r.ReadSlice('\n')
		read = read || len(chunk) > 0
		n := int64(len(l.buf)) + int64(len(chunk))
		if err == nil {
			n-- // the newline
		}
		switch {
		case over:
		case n > l.limit:
			over = true
			l.buf = l.buf[:0]
		default:
			l.buf = append(l.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			l.err = err
			if err != io.EOF || !read {
				return nil, err
			}
		}
		break
	}
	l.line++
	if over {
		return nil, &TooLargeError{File: l.file, Line: l.line, Limit: l.limit, What: l.what}
	}
	return l.buf, nil
}

// Line is the number, from 1, of the line Next returned last.
func (l *Lines) Line() int { return l.line }
