package sheetsfake

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The fake checks every request body against the API's discovery document,
// the JSON description that Google publishes and that ships inside the
// google.golang.org/api module: an unknown field, a wrong type or a value
// outside an enum is refused with 400, as Google refuses it.

type schema struct {
	Type                 string             `json:"type"`
	Ref                  string             `json:"$ref"`
	Format               string             `json:"format"`
	Enum                 []string           `json:"enum"`
	Items                *schema            `json:"items"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *schema            `json:"additionalProperties"`
}

type method struct {
	Request *schema `json:"request"`
	// Scopes are the OAuth scopes of which a token needs one.
	Scopes []string `json:"scopes"`
}

type resource struct {
	Methods   map[string]*method   `json:"methods"`
	Resources map[string]*resource `json:"resources"`
}

// Discovery is a parsed discovery document.
type Discovery struct {
	Path      string
	Schemas   map[string]*schema   `json:"schemas"`
	Resources map[string]*resource `json:"resources"`
}

// LoadDiscovery reads a discovery document.
func LoadDiscovery(path string) (*Discovery, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Discovery{Path: path}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// RequestSchema is the name of the request body schema of a method, given
// as its resource path and method name ("spreadsheets", "values",
// "batchUpdate").
func (d *Discovery) RequestSchema(path ...string) string {
	m := d.method(path...)
	if m == nil || m.Request == nil {
		return ""
	}
	return m.Request.Ref
}

// method finds a method by its resource path and name.
func (d *Discovery) method(path ...string) *method {
	rs := d.Resources
	var r *resource
	for _, p := range path[:len(path)-1] {
		r = rs[p]
		if r == nil {
			return nil
		}
		rs = r.Resources
	}
	if r == nil {
		return nil
	}
	return r.Methods[path[len(path)-1]]
}

// scopes are the OAuth scopes a method accepts, one of which a token
// needs; nil when the document does not say.
func (d *Discovery) scopes(path ...string) []string {
	if m := d.method(path...); m != nil {
		return m.Scopes
	}
	return nil
}

// Validate checks a JSON value against a named schema and returns Google's
// message for the first problem, or "".
func (d *Discovery) Validate(schemaName string, v any) string {
	s := d.Schemas[schemaName]
	if s == nil {
		return fmt.Sprintf("unknown schema %s", schemaName)
	}
	return d.check(s, v, "")
}

func (d *Discovery) check(s *schema, v any, at string) string {
	if s.Ref != "" {
		r := d.Schemas[s.Ref]
		if r == nil {
			return ""
		}
		s = r
	}
	where := func() string {
		if at == "" {
			return ""
		}
		return fmt.Sprintf(" at '%s'", at)
	}
	child := func(name string) string {
		if at == "" {
			return name
		}
		return at + "." + name
	}
	if v == nil {
		return "" // null is "unset" in JSON payloads
	}
	switch s.Type {
	case "object", "":
		m, ok := v.(map[string]any)
		if !ok {
			if s.Type == "" && s.Properties == nil {
				return ""
			}
			return fmt.Sprintf("Invalid JSON payload received. Expected an object%s.", where())
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p, ok := s.Properties[k]; ok {
				if msg := d.check(p, m[k], child(k)); msg != "" {
					return msg
				}
				continue
			}
			if s.AdditionalProperties != nil {
				if msg := d.check(s.AdditionalProperties, m[k], child(k)); msg != "" {
					return msg
				}
				continue
			}
			if s.Properties == nil && s.Type == "" {
				continue
			}
			return fmt.Sprintf("Invalid JSON payload received. Unknown name %q%s: Cannot find field.", k, where())
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("Invalid JSON payload received. Expected a list%s.", where())
		}
		for i, x := range l {
			if msg := d.check(s.Items, x, at+"["+strconv.Itoa(i)+"]"); msg != "" {
				return msg
			}
		}
	case "string":
		str, isStr := v.(string)
		_, isNum := v.(json.Number)
		switch {
		case isStr && len(s.Enum) > 0 && !slices.Contains(s.Enum, str):
			return fmt.Sprintf("Invalid value%s (%s), %q", where(), "TYPE_ENUM", str)
		case isStr:
		case isNum && (s.Format == "int64" || s.Format == "uint64"):
		default:
			return fmt.Sprintf("Invalid value%s (TYPE_STRING), %v", where(), v)
		}
	case "integer":
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return fmt.Sprintf("Invalid value%s (TYPE_INT32), %v", where(), v)
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return fmt.Sprintf("Invalid value%s (TYPE_DOUBLE), %v", where(), v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("Invalid value%s (TYPE_BOOL), %v", where(), v)
		}
	case "any":
	}
	return ""
}

// FindDiscovery locates the discovery documents that ship in the
// google.golang.org/api module: the folder in ANNOSHEET_DISCOVERY_DIR
// (holding sheets-api.json and drive-api.json), else the module's folder
// as the go command reports it, else the module cache.
func FindDiscovery() (sheetsDoc, driveDoc string, err error) {
	try := func(dir string) (string, string, bool) {
		s := filepath.Join(dir, "sheets", "v4", "sheets-api.json")
		d := filepath.Join(dir, "drive", "v3", "drive-api.json")
		if fileExists(s) && fileExists(d) {
			return s, d, true
		}
		s, d = filepath.Join(dir, "sheets-api.json"), filepath.Join(dir, "drive-api.json")
		return s, d, fileExists(s) && fileExists(d)
	}
	if dir := os.Getenv("ANNOSHEET_DISCOVERY_DIR"); dir != "" {
		if s, d, ok := try(dir); ok {
			return s, d, nil
		}
		return "", "", fmt.Errorf("ANNOSHEET_DISCOVERY_DIR=%s holds no sheets-api.json and drive-api.json", dir)
	}
	if out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "google.golang.org/api").Output(); err == nil {
		if s, d, ok := try(strings.TrimSpace(string(out))); ok {
			return s, d, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path != "google.golang.org/api" {
				continue
			}
			for _, cache := range moduleCaches() {
				if s, d, ok := try(filepath.Join(cache, "google.golang.org", "api@"+dep.Version)); ok {
					return s, d, nil
				}
			}
		}
	}
	return "", "", fmt.Errorf("the discovery documents of google.golang.org/api were not found (set ANNOSHEET_DISCOVERY_DIR)")
}

func moduleCaches() []string {
	var out []string
	if c := os.Getenv("GOMODCACHE"); c != "" {
		out = append(out, c)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		for _, p := range filepath.SplitList(gp) {
			out = append(out, filepath.Join(p, "pkg", "mod"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, "go", "pkg", "mod"))
	}
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
