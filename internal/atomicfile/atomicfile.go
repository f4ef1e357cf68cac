// Package atomicfile writes files so that readers see either the old file
// or the complete new one, never a half-written file, and so that an
// existing file is only replaced when the caller says so.
//
//	err := atomicfile.Write("out/b01.xlsx", false, func(w io.Writer) error {
//		return render(w)
//	})
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is returned when the target exists and overwriting was not
// asked for.
var ErrExists = errors.New("file exists")

// Write calls fn with a temporary file next to path and, when fn succeeds,
// syncs it and renames it to path. On failure the temporary file is
// removed and path is left as it was. Unless overwrite is set, an existing
// path is an error wrapping ErrExists and fn is not called. The new file
// gets mode perm, less the umask.
func Write(path string, overwrite bool, perm fs.FileMode, fn func(w io.Writer) error) (err error) {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w (use --force to replace it)", path, ErrExists)
		}
	}
	tmp, err := createTemp(path, perm)
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
	if !overwrite {
		// Link fails if path appeared meanwhile; rename would replace it.
		if err = os.Link(tmp.Name(), path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("%s: %w (use --force to replace it)", path, ErrExists)
			}
			os.Remove(tmp.Name())
			return err
		}
		return os.Remove(tmp.Name())
	}
	return os.Rename(tmp.Name(), path)
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
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file", dir)
}
