// Package atomicfile writes files so that readers see either the old file
// or the complete new one, never a half-written file; so that an existing
// file is only replaced when the caller says so; so that what is replaced
// is a regular file, never a device, a pipe, a link or a folder; and, for
// a file a person may be editing, only while it is still what the caller
// read.
//
//	err := atomicfile.Write("out/b01.xlsx", false, 0o644, func(w io.Writer) error {
//		return render(w)
//	})
//
//	stamp, _ := atomicfile.Stamp("adj/adjudicate-lead.xlsx") // before reading it
//	// ... read it, decide what to write ...
//	err := atomicfile.WriteWith("adj/adjudicate-lead.xlsx", atomicfile.Options{Perm: 0o644, Expect: &stamp}, render)
package atomicfile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/annosheet/annosheet/internal/boundedread"
)

// ErrExists is returned when the target exists and overwriting was not
// asked for.
var ErrExists = errors.New("file exists")

// ErrNotFile is returned when the target is there but is not a regular
// file (a folder, a device, a pipe, a symbolic link, a socket): it is
// never replaced.
var ErrNotFile = errors.New("not a regular file")

// ErrChanged is returned when the target is no longer what the caller
// read (Options.Expect): someone saved it meanwhile.
var ErrChanged = errors.New("changed since it was read")

// ErrNoFolder is returned when the target's folder does not exist.
var ErrNoFolder = errors.New("no such folder")

// Options say how Write may treat what is at the path.
type Options struct {
	// Overwrite lets an existing regular file be replaced.
	Overwrite bool
	// Perm is the new file's mode, less the umask.
	Perm fs.FileMode
	// Expect, when set, is the Stamp of the path as the caller read it
	// ("" for nothing there). The file is replaced only while it is
	// still that, checked once the new content is ready, just before it
	// takes the file's place; otherwise Write fails with ErrChanged and
	// leaves it as it is. Expect implies Overwrite.
	Expect *string
}

// Write calls fn with a temporary file next to path and, when fn succeeds,
// syncs it and renames it to path. On failure the temporary file is
// removed and path is left as it was. Unless overwrite is set, an existing
// path is an error wrapping ErrExists and fn is not called. The new file
// gets mode perm, less the umask.
func Write(path string, overwrite bool, perm fs.FileMode, fn func(w io.Writer) error) error {
	return WriteWith(path, Options{Overwrite: overwrite, Perm: perm}, fn)
}

// WriteWith is Write with every option. Whatever the options, a path
// that is a folder, a device, a pipe, a socket or a symbolic link is an
// error wrapping ErrNotFile, and a missing folder one wrapping
// ErrNoFolder, both before fn is called.
func WriteWith(path string, opt Options, fn func(w io.Writer) error) (err error) {
	if opt.Expect != nil {
		opt.Overwrite = true
	}
	exists, err := target(path)
	if err != nil {
		return err
	}
	if exists && !opt.Overwrite {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	if opt.Expect != nil {
		if err := expect(path, *opt.Expect); err != nil {
			return err
		}
	}
	tmp, err := createTemp(path, opt.Perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fn(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	// What is at path is checked again now that the new file is ready:
	// the render may have taken long enough for it to change.
	if _, err = target(path); err != nil {
		return err
	}
	if opt.Expect != nil {
		if err = expect(path, *opt.Expect); err != nil {
			return err
		}
	}
	if !opt.Overwrite || opt.Expect != nil && *opt.Expect == "" {
		// Link fails if path appeared meanwhile; rename would replace it.
		err = link(tmp.Name(), path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A file system without hard links (FAT, some network
			// shares): the path is taken by a file of its own, which
			// fails as Link does if it is there, then replaced.
			err = claim(path)
			if err == nil {
				return os.Rename(tmp.Name(), path)
			}
		}
		if errors.Is(err, fs.ErrExist) {
			if opt.Expect != nil {
				err = fmt.Errorf("%s: %w: it was not there when it was read, and now it is", path, ErrChanged)
			} else {
				err = fmt.Errorf("%s: %w", path, ErrExists)
			}
		}
		if err != nil {
			return err
		}
		return os.Remove(tmp.Name())
	}
	return os.Rename(tmp.Name(), path)
}

// link makes the finished file's name; tests replace it to be a file
// system without hard links.
var link = os.Link

// claim creates an empty file at path, failing with fs.ErrExist if
// anything is there.
func claim(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// target says whether path holds a regular file, and refuses anything
// else that is there, and a folder that is not.
func target(path string) (exists bool, err error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, folder(path)
	case err != nil:
		// A file where a folder of the path should be, say.
		if ferr := folder(path); ferr != nil {
			return false, ferr
		}
		return false, err
	case st.Mode().IsRegular():
		return true, nil
	}
	return true, &NotFileError{Path: path, Mode: st.Mode()}
}

// folder checks that the folder path goes in is there and is a folder,
// so that a missing one is named as such, not by a temporary file's name.
func folder(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w %s", path, ErrNoFolder, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%s: %w: %s is not a folder", path, ErrNoFolder, dir)
	}
	return nil
}

// NotFileError is a target that is not a regular file.
type NotFileError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotFileError) Error() string {
	return fmt.Sprintf("%s: %s, not a regular file: it is left as it is", e.Path, boundedread.Kind(e.Mode))
}

func (e *NotFileError) Unwrap() error { return ErrNotFile }

// Stamp identifies what path holds now: its size, modification time and
// a hash of its content; "" when nothing is there. Take it before reading
// a file that will be replaced, and give it to WriteWith as Expect: a
// change in between, even one that keeps the size and the time, is seen.
// A path that is not a regular file is an error wrapping ErrNotFile.
func Stamp(path string) (string, error) {
	exists, err := target(path)
	if err != nil || !exists {
		if errors.Is(err, ErrNoFolder) {
			err = nil
		}
		return "", err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return strconv.FormatInt(st.Size(), 10) + "/" + strconv.FormatInt(st.ModTime().UnixNano(), 10) + "/" + hex.EncodeToString(h.Sum(nil)), nil
}

// expect fails with ErrChanged when path is no longer as stamped.
func expect(path, want string) error {
	now, err := Stamp(path)
	if err != nil {
		return err
	}
	switch {
	case now == want:
		return nil
	case want == "":
		return fmt.Errorf("%s: %w: it was not there when it was read, and now it is", path, ErrChanged)
	case now == "":
		return fmt.Errorf("%s: %w: it is gone", path, ErrChanged)
	}
	return fmt.Errorf("%s: %w: it was saved after it was read", path, ErrChanged)
}

// createTemp creates a new file next to path. Unlike os.CreateTemp it
// takes perm, so the kernel applies the umask as for any new file.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// The folder's own problem (gone, read-only), named by the
			// file the caller asked for, not by the temporary one.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s: cannot write in %s: %w", path, dir, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file in %s", path, dir)
}
