package input

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/annosheet/annosheet/templates"
)

// A template with one problem, reported at its question (line 11): the
// scale's bounds are swapped.
const badTemplate = `name: demo
version: 1
title: Demo
instructions: Rate each answer.
input: {id: "{id}"}
rows: {per: record}
context:
  - name: answer
    path: answer
questions:
  - name: rating
    type: scale
    min: 5
    max: 1
`

// Template takes a built-in name or a file.
func TestTemplate(t *testing.T) {
	tp, err := Template("legal-gaps", nil)
	if err != nil || tp.Name != "legal-gaps" || tp.File != "builtin:legal-gaps" {
		t.Fatalf("Template(legal-gaps) = %v, %v", tp, err)
	}
	const mqm = "../testdata/templates/mqm.yaml"
	tp, err = Template(mqm, nil)
	if err != nil {
		t.Fatalf("Template(%s): %v", mqm, err)
	}
	if tp.Name != "mqm-translation" || tp.Version != 2 || tp.File != mqm {
		t.Errorf("Template(%s): name %q version %d file %q", mqm, tp.Name, tp.Version, tp.File)
	}

	_, err = Template("no-such-template", nil)
	if !errors.Is(err, templates.ErrUnknown) {
		t.Fatalf("Template(no-such-template) = %v; want ErrUnknown", err)
	}
	want := `unknown template "no-such-template": not a built-in (factgenie-meta-eval, legal-gaps, preference-likert, qa-span-errors) and no such file`
	if err.Error() != want {
		t.Errorf("Template(no-such-template) error:\n got %s\nwant %s", err, want)
	}

	// A name that looks like a file is read as one.
	_, err = Template("no-such-template.yaml", nil)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, templates.ErrUnknown) {
		t.Errorf("Template(no-such-template.yaml) = %v; want fs.ErrNotExist", err)
	}

	// A bad file gives its problems, located in the file.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(badTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Template(bad, nil)
	var got templates.ErrorList
	if !errors.As(err, &got) {
		t.Fatalf("Template(bad.yaml) = %v; want an ErrorList", err)
	}
	wantL := templates.ErrorList{{File: bad, Line: 11, Msg: `question "rating": min 5 must be below max 1`}}
	if d := cmp.Diff(wantL, got); d != "" {
		t.Errorf("Template(bad.yaml) (-want +got):\n%s", d)
	}
}

// Parameters given with a file reach the template, as with a built-in.
func TestTemplateParams(t *testing.T) {
	_, err := Template("legal-gaps", map[string]string{"no-such-param": "x"})
	_, errFile := TemplateFile("../testdata/templates/mqm.yaml", map[string]string{"no-such-param": "x"})
	if err == nil || errFile == nil {
		t.Errorf("an unknown parameter was accepted: built-in %v, file %v", err, errFile)
	}
}

// A file over templates.MaxSize is refused before it is read.
func TestTemplateFileSize(t *testing.T) {
	big := append([]byte("name: x\n# "), bytes.Repeat([]byte("a"), templates.MaxSize)...)
	name := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(name, big, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := TemplateFile(name, nil)
	var e *templates.Error
	if !errors.As(err, &e) || !errors.Is(err, templates.ErrInvalid) {
		t.Fatalf("TemplateFile(big) = %v; want an *Error wrapping ErrInvalid", err)
	}
	if want := (templates.Error{File: name, Msg: fmt.Sprintf("file is %d bytes; templates are limited to %d", len(big), templates.MaxSize)}); *e != want {
		t.Errorf("TemplateFile(big) = %+v; want %+v", *e, want)
	}
}

func TestTemplateFileMissing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "missing.yaml")
	_, err := TemplateFile(name, nil)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, templates.ErrInvalid) || errors.Is(err, templates.ErrUnknown) {
		t.Errorf("TemplateFile(missing) = %v; want an error wrapping fs.ErrNotExist only", err)
	}
}
