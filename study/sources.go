package study

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/annosheet/annosheet/input"
	"github.com/annosheet/annosheet/manifest"
)

// Ref is one workbook to read, and what the study expects of it.
type Ref struct {
	// Path is the file as the user gave it (joined to the folder given),
	// or the spreadsheet's link.
	Path        string
	Spreadsheet string // a spreadsheet's ID; "" for a file
	// Study is the study the workbook must belong to ("" when any).
	Study string
	// Batch is the manifest's batch this is the workbook of, if any.
	Batch *manifest.Batch
	// Manifest is the study's manifest, when one is known.
	Manifest *Manifest
	// Loose: a workbook the manifest does not list (a returned copy
	// beside the original, or given by name with a manifest); read only
	// if it is of the study.
	Loose bool
	// Found: met in a folder rather than named; a file that cannot be
	// read is reported and the rest goes on.
	Found bool
}

// Manifest is a study's manifest and where it was read from.
type Manifest struct {
	*manifest.Manifest
	Path string // as given, or joined to the folder given
}

// Dir is the folder the manifest's paths are relative to.
func (m *Manifest) Dir() string { return filepath.Dir(m.Path) }

// InputOptions are how generate read the study's inputs, for reading
// them again.
func (m *Manifest) InputOptions() input.Options {
	return input.Options{Format: m.InputFormat, Sheet: m.InputSheet}
}

// Skipped is a file met in a folder that was not read.
type Skipped struct {
	Path string
	Why  string
}

// Sources are the workbooks to read for a command's SOURCE arguments.
type Sources struct {
	Refs      []Ref
	Manifests []*Manifest
	// Skipped lists spreadsheet files in the folders given that cannot be
	// read; they are reported, never passed over in silence.
	Skipped  []Skipped
	backends Backends
}

// Open turns SOURCE arguments into the workbooks to read: a workbook file,
// a folder of them, a study's folder or manifest.json, or a spreadsheet's
// link or ID. A folder with a manifest.json is that study: its manifest
// must be readable. Workbooks given beside a manifest must be of its study.
func Open(sources []string, b Backends) (*Sources, error) {
	s := &Sources{backends: b}
	var loose []Ref
	for _, arg := range sources {
		st, err := os.Stat(arg)
		if err != nil {
			if b.Spreadsheets != nil && errors.Is(err, fs.ErrNotExist) {
				if id, ok := b.Spreadsheets.ID(arg); ok {
					loose = append(loose, Ref{Path: arg, Spreadsheet: id})
					continue
				}
			}
			return nil, fmt.Errorf("source %s: %w (not a file, a folder, or a spreadsheet link)", arg, err)
		}
		switch {
		case st.IsDir():
			manPath := filepath.Join(arg, manifest.FileName)
			if _, err := os.Lstat(manPath); err == nil {
				m, err := readManifest(manPath)
				if err != nil {
					return nil, err
				}
				if err := s.addStudy(m); err != nil {
					return nil, err
				}
				continue
			}
			refs, err := s.folder(arg, nil)
			if err != nil {
				return nil, err
			}
			if len(refs) == 0 && !s.skippedIn(arg) {
				return nil, fmt.Errorf("source %s: no workbooks in the folder", arg)
			}
			loose = append(loose, refs...)
		case strings.EqualFold(filepath.Ext(arg), ".json"):
			m, err := readManifest(arg)
			if err != nil {
				return nil, err
			}
			if err := s.addStudy(m); err != nil {
				return nil, err
			}
		default:
			loose = append(loose, Ref{Path: arg})
		}
	}
	// A workbook given with a study's manifest is read as that study's;
	// given with several, it must be of one of them.
	switch len(s.Manifests) {
	case 0:
	case 1:
		m := s.Manifests[0]
		for i := range loose {
			loose[i].Study, loose[i].Manifest, loose[i].Loose = m.Study, m, true
		}
	default:
		for i := range loose {
			loose[i].Loose = true
		}
	}
	s.Refs = append(s.Refs, loose...)
	return s, nil
}

// readManifest reads a manifest; a file that is not one is an error that
// names it, whatever the cause.
func readManifest(path string) (*Manifest, error) {
	m, err := manifest.Read(path)
	if err != nil {
		if errors.Is(err, manifest.ErrNotManifest) {
			return nil, err
		}
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return &Manifest{Manifest: m, Path: path}, nil
}

// addStudy adds every workbook a manifest lists and every other workbook
// in its folder: an annotator's returned copy saved beside the original
// counts for its batch.
func (s *Sources) addStudy(m *Manifest) error {
	for _, other := range s.Manifests {
		if other.Study != m.Study {
			continue
		}
		if sameFile(other.Path, m.Path) {
			return nil // the same study given twice
		}
		// A copy of the study's folder (returned whole by an annotator,
		// say): its workbooks are copies of the study's batches.
		refs, err := s.folder(m.Dir(), nil)
		if err != nil {
			return err
		}
		for _, r := range refs {
			r.Study, r.Manifest, r.Loose = other.Study, other, true
			s.Refs = append(s.Refs, r)
		}
		return nil
	}
	s.Manifests = append(s.Manifests, m)
	dir := m.Dir()
	listed := map[string]bool{}
	for i := range m.Batches {
		b := &m.Batches[i]
		if b.Spreadsheet != nil {
			s.Refs = append(s.Refs, Ref{Path: b.Spreadsheet.URL, Spreadsheet: b.Spreadsheet.ID, Study: m.Study, Batch: b, Manifest: m})
			continue
		}
		path := dir
		if b.File != "" {
			path = filepath.Join(dir, b.File)
			listed[b.File] = true
		}
		s.Refs = append(s.Refs, Ref{Path: path, Study: m.Study, Batch: b, Manifest: m})
	}
	refs, err := s.folder(dir, listed)
	if err != nil {
		return err
	}
	for _, r := range refs {
		r.Study, r.Manifest, r.Loose = m.Study, m, true
		s.Refs = append(s.Refs, r)
	}
	return nil
}

// folder lists the workbooks in dir, leaving out those in skip, lock files
// and hidden files; spreadsheet files it cannot read are noted as skipped.
func (s *Sources) folder(dir string, skip map[string]bool) ([]Ref, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || skip[e.Name()] {
			continue
		}
		if !e.Type().IsRegular() {
			// A link is followed; a named pipe or a device is never
			// opened (reading one would block), but it is said.
			st, err := os.Stat(filepath.Join(dir, e.Name()))
			if err == nil && st.IsDir() {
				continue
			}
			if err != nil || !st.Mode().IsRegular() {
				if ok, _ := s.readable(e.Name()); ok {
					s.Skipped = append(s.Skipped, Skipped{Path: filepath.Join(dir, e.Name()), Why: "it is not a regular file"})
				}
				continue
			}
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var refs []Ref
	for _, name := range names {
		path := filepath.Join(dir, name)
		ok, why := s.readable(name)
		switch {
		case ok:
			refs = append(refs, Ref{Path: path, Found: true})
		case why != "":
			s.Skipped = append(s.Skipped, Skipped{Path: path, Why: why})
		}
	}
	return refs, nil
}

func (s *Sources) skippedIn(dir string) bool {
	return slices.ContainsFunc(s.Skipped, func(k Skipped) bool { return filepath.Dir(k.Path) == filepath.Clean(dir) })
}

// readable asks the files backend; without one, only .xlsx files are read.
func (s *Sources) readable(name string) (bool, string) {
	if strings.HasPrefix(name, "~$") || strings.HasPrefix(name, ".") {
		return false, ""
	}
	if s.backends.Files != nil {
		return s.backends.Files.Readable(name)
	}
	return strings.EqualFold(filepath.Ext(name), ".xlsx"), ""
}

// key identifies the workbook a ref reads, whatever path led to it.
func (r Ref) key() string {
	if r.Spreadsheet != "" {
		return "gsheets:" + r.Spreadsheet
	}
	key := r.Path
	if abs, err := filepath.Abs(r.Path); err == nil {
		key = abs
		if resolved, err := filepath.EvalSymlinks(abs); err == nil {
			key = resolved
		}
	}
	return key
}

// sameFile says whether two paths lead to the same file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}
