package xlsx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/annosheet/annosheet/backend"
)

// lookSoffice finds LibreOffice on PATH: soffice, or libreoffice as some
// distributions name it.
func lookSoffice() (string, error) {
	var first error
	for _, name := range []string{"soffice", "libreoffice"} {
		p, err := exec.LookPath(name)
		if err == nil {
			return p, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// convert has LibreOffice convert the spreadsheet at path to an .xlsx in a
// temporary folder and opens that as the grid of path. The folder, which
// also holds a fresh LibreOffice profile, is removed by close, or at once
// on error.
//
// The fresh profile (HOME and UserInstallation both point into the
// folder) keeps the user's own profile untouched and lets the conversion
// run while the user has LibreOffice open. The input is copied into the
// folder first, so that LibreOffice's lock file never appears beside the
// user's file and odd file names never reach its command line.
func (o opener) convert(ctx context.Context, path string) (_ *backend.Grid, _ func() error, err error) {
	soffice, err := o.soffice()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w, and LibreOffice is not installed (neither soffice nor libreoffice is on PATH): %s",
			path, ErrNeedsConversion, save)
	}
	dir, err := os.MkdirTemp("", "annosheet-convert-")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: convert with LibreOffice: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	in := filepath.Join(dir, "in"+strings.ToLower(filepath.Ext(path)))
	if err := copyFile(path, in); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	out := filepath.Join(dir, "out")
	profile := &url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "profile"))}
	if !strings.HasPrefix(profile.Path, "/") {
		profile.Path = "/" + profile.Path // a Windows drive letter
	}
	timeout := o.timeout
	if timeout <= 0 {
		timeout = convertTimeout
	}
	// The timeout bounds the conversion, not the reading of its result.
	run, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(run, soffice,
		"-env:UserInstallation="+profile.String(),
		"--headless", "--invisible", "--norestore", "--nologo", "--nodefault", "--nolockcheck",
		"--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", out, in)
	cmd.Dir = dir
	cmd.Env = append(withoutHome(os.Environ()), "HOME="+dir)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	ownGroup(cmd)
	// If the process group cannot be ended, Wait still returns: soffice
	// may leave a child holding the output pipe.
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if run.Err() != nil {
		return nil, nil, fmt.Errorf("%s: %w: it took longer than %v: %w", path, ErrConversion, timeout, run.Err())
	}
	converted := filepath.Join(out, "in.xlsx")
	if _, statErr := os.Stat(converted); statErr != nil {
		why := said(output.String())
		if runErr != nil {
			why = strings.TrimSuffix(runErr.Error()+": "+why, ": ")
		}
		if why == "" {
			why = "it wrote no workbook"
		}
		return nil, nil, fmt.Errorf("%s: %w (is the file damaged?): %s", path, ErrConversion, tail(why, 400))
	}
	g, closeBook, err := openBook(ctx, converted, path)
	if err != nil {
		return nil, nil, err
	}
	return g, func() error {
		// The converted copy is gone with its folder; the workbook's own
		// error is what close says (a folder left in the temporary one
		// loses nothing, and the system clears it).
		err := closeBook()
		os.RemoveAll(dir)
		return err
	}, nil
}

func copyFile(src, dst string) error {
	r, err := os.Open(src)
	if err != nil {
		return unpath(err)
	}
	defer r.Close()
	w, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return unpath(err)
	}
	return w.Close()
}

func withoutHome(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "HOME=") {
			out = append(out, e)
		}
	}
	return out
}

// said is what LibreOffice printed, less the warnings it prints on every
// run.
func said(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.Contains(line, "javaldx") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "; ")
}

// tail keeps the last n bytes of s, where LibreOffice's reason usually is.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
