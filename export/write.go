package export

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/annosheet/annosheet/internal/atomicfile"
	"github.com/annosheet/annosheet/internal/filename"
)

// ErrSamePath is wrapped when two annotators' files would be written to
// one path.
var ErrSamePath = errors.New("two annotators' files at one path")

// Paths gives each file the path it is written to: out, or, for a file
// of one annotator's, out with the annotator's ID in place of
// {annotator}, or before the extension when there are several files.
// Two files at one path, as file systems compare them, are refused.
func Paths(files []File, out string) ([]string, error) {
	paths := make([]string, len(files))
	seen := map[string]string{} // path, as file systems compare it -> annotator
	for i, f := range files {
		path := out
		if f.Annotator != "" {
			path = annotatorPath(out, f.Annotator, len(files))
		}
		if other, dup := seen[filename.Key(path)]; dup {
			return nil, fmt.Errorf("%w: annotators %q and %q would both be written to %s", ErrSamePath, other, f.Annotator, path)
		}
		seen[filename.Key(path)], paths[i] = f.Annotator, path
	}
	return paths, nil
}

// WriteFiles writes each file to its path (Paths), every path checked
// before any file is written: a file there already is replaced only with
// force, and all that are there are named at once. wrote is told of each
// file written.
func WriteFiles(files []File, out string, force bool, wrote func(path string, f File)) error {
	paths, err := Paths(files, out)
	if err != nil {
		return err
	}
	var there []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil && !force {
			there = append(there, p)
		}
	}
	if len(there) > 0 {
		return fmt.Errorf("%s: %w", strings.Join(there, ", "), atomicfile.ErrExists)
	}
	for i, f := range files {
		err := atomicfile.Write(paths[i], force, 0o644, func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		})
		if err != nil {
			return err
		}
		wrote(paths[i], f)
	}
	return nil
}

// annotatorPath puts an annotator's ID into an output path: in place of
// {annotator}, or before the extension when several files are written.
func annotatorPath(out, annotator string, n int) string {
	// An ID cannot name another folder, nor a name too long.
	safe := filename.Part(annotator)
	if strings.Contains(out, "{annotator}") {
		return strings.ReplaceAll(out, "{annotator}", safe)
	}
	if n == 1 {
		return out
	}
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "-" + safe + ext
}
