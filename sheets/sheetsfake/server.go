// Package sheetsfake is an in-process fake of the Google Sheets (v4) and
// Drive (v3) REST APIs, faithful where annosheet depends on them: it speaks
// the real paths and JSON, keeps the state of every spreadsheet (values,
// formats, validations, notes, merges, protected ranges, sheet and
// dimension properties), checks every request body against the discovery
// document shipped in the google.golang.org/api module, and refuses what
// Google refuses: cells over 50,000 characters, writes outside the grid,
// unknown fields, bad A1 ranges. It can fail on demand (429 with
// Retry-After, 500, slow answers), enforce Google's per-minute quotas on
// a clock the test controls (Options.Quota, Options.Now, Clock), and it
// has the OAuth endpoints an installed app and a service account use. It
// binds 127.0.0.1 only.
//
//	fake, srv, err := sheetsfake.Start(sheetsfake.Options{})
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	fake.Inject(sheetsfake.Fault{Match: "batchUpdate", Status: 429, RetryAfter: "1"})
//	c, err := sheets.New(ctx, sheets.Options{Endpoint: srv.URL, NoAuth: true})
//
// The command fakesheets runs it as a server for dry runs of the CLI.
package sheetsfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options configure a fake.
type Options struct {
	// RequireAuth refuses API calls without a valid access token issued
	// by the fake's token endpoint.
	RequireAuth bool
	// Discovery documents; found with FindDiscovery when nil.
	Sheets, Drive *Discovery
	// ClientID and ClientSecret of the OAuth client the fake knows.
	ClientID, ClientSecret string
	// Quota is the per-minute request quotas to enforce (GoogleQuota
	// gives Google's); the zero Quota enforces none.
	Quota Quota
	// Now is the fake's clock, for token expiry and the quota's minutes
	// (a simulated Clock's Now in tests); time.Now when nil.
	Now func() time.Time
}

// Fault makes matching calls fail (or wait) on purpose.
type Fault struct {
	// Match is a substring of "METHOD /path"; "" matches every API call.
	Match string `json:"match"`
	// Status is the HTTP status to answer with; 0 only delays.
	Status int `json:"status"`
	// RetryAfter is sent as the Retry-After header.
	RetryAfter string `json:"retry_after"`
	// Delay is how long to wait before answering.
	Delay time.Duration `json:"delay"`
	// Times is how many calls it hits (1 when 0).
	Times int `json:"times"`
	// Lost carries the call out and then answers with Status, as when
	// Google did the work but its answer never arrived.
	Lost bool `json:"lost"`
	// Reason is the error's reason ("userRateLimitExceeded"); by default
	// the status's usual one.
	Reason string `json:"reason"`
}

// Call is one API call the fake answered.
type Call struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Status int    `json:"status"`
}

// Server is the fake. Its zero value is not usable; use New.
type Server struct {
	opt    Options
	mu     sync.Mutex
	books  map[string]*book
	files  map[string]*file
	seq    int
	faults []*Fault
	calls  []Call
	auth   *authState
	base   string // the URL the fake is served at, for links
	quota  quotaState
	// Now is the fake's clock, for token expiry and the quota's minutes
	// (Options.Now).
	Now func() time.Time
}

// New makes a fake. A missing discovery document is an error: without it
// the fake could not refuse unknown fields as Google does.
func New(opt Options) (*Server, error) {
	if opt.Sheets == nil || opt.Drive == nil {
		d := defaultDocs()
		if d.err != nil {
			return nil, d.err
		}
		opt.Sheets, opt.Drive = d.sheets, d.drive
	}
	if opt.ClientID == "" {
		opt.ClientID, opt.ClientSecret = "fake-client.apps.googleusercontent.com", "fake-secret"
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	s := &Server{opt: opt, books: map[string]*book{}, files: map[string]*file{}, Now: now}
	s.auth = newAuthState()
	return s, nil
}

type docs struct {
	sheets, drive *Discovery
	err           error
}

// defaultDocs finds and reads the discovery documents once: every fake of
// a process shares them (they are only read).
var defaultDocs = sync.OnceValue(func() docs {
	sp, dp, err := FindDiscovery()
	if err != nil {
		return docs{err: err}
	}
	var d docs
	if d.sheets, d.err = LoadDiscovery(sp); d.err != nil {
		return d
	}
	d.drive, d.err = LoadDiscovery(dp)
	return d
})

// Start runs a new fake on 127.0.0.1 and returns it with its server.
func Start(opt Options) (*Server, *httptest.Server, error) {
	s, err := New(opt)
	if err != nil {
		return nil, nil, err
	}
	srv := httptest.NewServer(s)
	s.SetBase(srv.URL)
	return s, srv, nil
}

// SetBase tells the fake the URL it is served at.
func (s *Server) SetBase(u string) {
	s.mu.Lock()
	s.base = strings.TrimSuffix(u, "/")
	s.mu.Unlock()
}

// Inject adds faults.
func (s *Server) Inject(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range f {
		ff := f[i]
		if ff.Times == 0 {
			ff.Times = 1
		}
		s.faults = append(s.faults, &ff)
	}
}

// Calls returns the API calls answered so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ResetCalls forgets the calls answered so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	s.calls = nil
	s.mu.Unlock()
}

// apiError is Google's JSON error.
type apiError struct {
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Errors  []errorItem `json:"errors"`
	Status  string      `json:"status"`
}

type errorItem struct {
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func statusName(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

func writeError(w http.ResponseWriter, code int, format string, args ...any) {
	writeReason(w, code, "", format, args...)
}

// reasons are the usual reasons of Google's statuses.
var reasons = map[int]string{400: "badRequest", 401: "authError", 403: "forbidden", 404: "notFound", 429: "rateLimitExceeded", 500: "backendError", 503: "backendError"}

// writeReason writes Google's JSON error with the reason its "errors"
// list gives (the status's usual one when "").
func writeReason(w http.ResponseWriter, code int, reason, format string, args ...any) {
	if reason == "" {
		reason = reasons[code]
		if reason == "" {
			reason = "backendError"
		}
	}
	msg := fmt.Sprintf(format, args...)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": apiError{
		Code: code, Message: msg, Status: statusName(code),
		Errors: []errorItem{{Domain: "global", Reason: reason, Message: msg}},
	}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(v)
}

// statusWriter remembers the status for the call log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// rescue turns a panic of the fake into Google's 500, naming the panic: a
// bug of the fake must not look like a broken connection to the client.
func (s *Server) rescue(w http.ResponseWriter) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		writeError(w, 500, "Internal error encountered. (the fake panicked: %v)", p)
	}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.rescue(w)
	path := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(path, "/_fake/"):
		s.control(w, r)
		return
	case path == "/token" || path == "/auth" || path == "/revoke":
		s.oauth(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if err != nil {
		writeError(w, 400, "cannot read the request: %v", err)
		return
	}
	sw := &statusWriter{ResponseWriter: w, status: 200}
	defer func() {
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: r.Method, Path: path, Bytes: len(body), Status: sw.status})
		s.mu.Unlock()
	}()
	// Rescued before the call is logged, so the log has the 500.
	defer s.rescue(sw)
	if f := s.fault(r.Method + " " + path); f != nil {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if f.Lost {
			if who, code, _ := s.caller(r); code == 0 {
				s.route(httptest.NewRecorder(), r, path, body, who)
			}
		}
		if f.Status != 0 {
			if f.RetryAfter != "" {
				sw.Header().Set("Retry-After", f.RetryAfter)
			}
			writeReason(sw, f.Status, f.Reason, "injected fault (%d)", f.Status)
			return
		}
	}
	who, code, msg := s.caller(r)
	if code != 0 {
		writeError(sw, code, "%s", msg)
		return
	}
	if s.overQuota(sw, r.Method, path, who) {
		return
	}
	s.route(sw, r, path, body, who)
}

// fault takes the next fault matching a call.
func (s *Server) fault(call string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Match == "" || strings.Contains(call, f.Match) {
			f.Times--
			if f.Times <= 0 {
				s.faults = append(s.faults[:i], s.faults[i+1:]...)
			}
			c := *f
			return &c
		}
	}
	return nil
}

// decode checks a body against a discovery schema and decodes it.
func decode(w http.ResponseWriter, d *Discovery, schemaName string, body []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		writeError(w, 400, "Invalid JSON payload received. %v", err)
		return false
	}
	if msg := d.Validate(schemaName, raw); msg != "" {
		writeError(w, 400, "%s", msg)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, 400, "Invalid JSON payload received. %v", err)
		return false
	}
	return true
}

// allowed answers Google's 403 when the caller's token has no scope the
// method (path in its discovery document) accepts.
func allowed(w http.ResponseWriter, who principal, d *Discovery, path ...string) bool {
	if who.may(d, path...) {
		return true
	}
	writeError(w, 403, "%s", errScopes)
	return false
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, path string, body []byte, who principal) {
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	unesc := func(x string) string {
		u, err := url.PathUnescape(x)
		if err != nil {
			return x
		}
		return u
	}
	may := func(path ...string) bool { return allowed(w, who, s.opt.Sheets, path...) }
	switch {
	case len(seg) == 2 && seg[0] == "v4" && seg[1] == "spreadsheets" && r.Method == http.MethodPost:
		if may("spreadsheets", "create") {
			s.createSpreadsheet(w, body, who)
		}
	case len(seg) == 3 && seg[0] == "v4" && seg[1] == "spreadsheets":
		id, verb, _ := strings.Cut(unesc(seg[2]), ":")
		switch {
		case verb == "" && r.Method == http.MethodGet:
			if may("spreadsheets", "get") {
				s.getSpreadsheet(w, r, id, who)
			}
		case verb == "batchUpdate" && r.Method == http.MethodPost:
			if may("spreadsheets", "batchUpdate") {
				s.batchUpdate(w, id, body, who)
			}
		default:
			writeError(w, 404, "no such method %s %s", r.Method, path)
		}
	case len(seg) == 4 && seg[0] == "v4" && seg[1] == "spreadsheets" && strings.HasPrefix(seg[3], "values:"):
		id := unesc(seg[2])
		switch {
		case seg[3] == "values:batchGet" && r.Method == http.MethodGet:
			if may("spreadsheets", "values", "batchGet") {
				s.valuesBatchGet(w, r, id, who)
			}
		case seg[3] == "values:batchUpdate" && r.Method == http.MethodPost:
			if may("spreadsheets", "values", "batchUpdate") {
				s.valuesBatchUpdate(w, id, body, who)
			}
		default:
			writeError(w, 404, "no such method %s %s", r.Method, path)
		}
	case len(seg) == 5 && seg[0] == "v4" && seg[1] == "spreadsheets" && seg[3] == "values":
		id, rng := unesc(seg[2]), unesc(seg[4])
		switch {
		case r.Method == http.MethodPut:
			if may("spreadsheets", "values", "update") {
				s.valuesUpdate(w, r, id, rng, body, who)
			}
		case r.Method == http.MethodGet:
			if may("spreadsheets", "values", "get") {
				s.valuesGet(w, r, id, rng, who)
			}
		default:
			writeError(w, 404, "no such method %s %s", r.Method, path)
		}
	case len(seg) >= 3 && seg[0] == "drive" && seg[1] == "v3" && seg[2] == "files":
		s.drive(w, r, seg[3:], body, who)
	case len(seg) == 3 && seg[0] == "drive" && seg[1] == "v3" && seg[2] == "about" && r.Method == http.MethodGet:
		s.about(w, r, who)
	default:
		writeError(w, 404, "no such method %s %s", r.Method, path)
	}
}

// control is the fake's own API, for the fakesheets command: faults and the
// call log.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/_fake/faults":
		if r.Method != http.MethodPost {
			writeError(w, 405, "POST a list of faults")
			return
		}
		var fs []Fault
		if err := json.NewDecoder(r.Body).Decode(&fs); err != nil {
			writeError(w, 400, "faults: %v", err)
			return
		}
		s.Inject(fs...)
		writeJSON(w, map[string]int{"faults": len(fs)})
	case "/_fake/calls":
		writeJSON(w, s.Calls())
	default:
		writeError(w, 404, "no such control %s", r.URL.Path)
	}
}
