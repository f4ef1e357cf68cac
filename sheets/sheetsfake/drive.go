package sheetsfake

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	drive "google.golang.org/api/drive/v3"
	sheetsapi "google.golang.org/api/sheets/v4"
)

// The Drive calls annosheet makes: create a spreadsheet in a folder (the
// only way a service account can), get and move a file between folders
// (shared drives too), and share it.

const (
	mimeSheet  = "application/vnd.google-apps.spreadsheet"
	mimeFolder = "application/vnd.google-apps.folder"
)

// errNoQuota is Google's answer when a service account would own a file.
const errNoQuota = "Service Accounts do not have storage quota. Leverage shared drives (https://developers.google.com/workspace/drive/api/guides/about-shareddrives), or use OAuth delegation instead."

// file is a Drive item: a spreadsheet or a folder.
type file struct {
	ID, Name, MimeType string
	Parents            []string
	// DriveID is the shared drive that holds it, "" for My Drive.
	DriveID string
	// Owner made it (My Drive); Members can use it (shared drives, or a
	// folder shared with them).
	Owner   string
	Members []string
	// Permissions given with permissions.create, and the mails they sent.
	Permissions []*drive.Permission
	Mails       []Mail
	// AppProperties are the app's private key-value pairs.
	AppProperties map[string]string
	// Version counts the changes made to the file, as Drive's version
	// does: every edit of a spreadsheet's cells, sheets or metadata, and
	// every permission, raises it.
	Version int64
}

// touch records a change to the file id: its version rises.
func (s *Server) touch(id string) {
	if f := s.files[id]; f != nil {
		f.Version++
	}
}

// Mail is a sharing notification the fake would have sent.
type Mail struct {
	To, Role, Message string
}

// Share is one permission on a file, as tests inspect it.
type Share struct {
	Email, Role, Type string
}

// AddFolder makes a folder the given people can use (the fake's user when
// none are named) and returns its ID. A folder of a shared drive can hold
// files a service account creates.
func (s *Server) AddFolder(name string, sharedDrive bool, members ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.newID()
	if len(members) == 0 {
		members = []string{FakeUser}
	}
	f := &file{ID: id, Name: name, MimeType: mimeFolder, Members: members, Parents: []string{"root"}}
	if sharedDrive {
		f.DriveID = "0Afake" + id[len(id)-8:]
		f.Parents = []string{f.DriveID}
	}
	s.files[id] = f
	return id
}

// FileInfo is what the fake knows of a Drive item: its parents, its
// permissions and the sharing mails sent.
func (s *Server) FileInfo(id string) (parents []string, shares []Share, mails []Mail, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[id]
	if f == nil {
		return nil, nil, nil, false
	}
	for _, p := range f.Permissions {
		shares = append(shares, Share{Email: p.EmailAddress, Role: p.Role, Type: p.Type})
	}
	return slices.Clone(f.Parents), shares, slices.Clone(f.Mails), true
}

// Spreadsheets lists the IDs of the spreadsheets the fake holds, in the
// order they were made.
func (s *Server) Spreadsheets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.books {
		ids = append(ids, id)
	}
	slices.Sort(ids) // IDs are made in increasing order
	return ids
}

// canUse reports whether someone may see and edit a file: its owner, a
// member of it or of a folder above it, or someone it was shared with.
func (s *Server) canUse(f *file, who principal) bool {
	for depth := 0; f != nil && depth < 32; depth++ {
		if f.Owner == who.email || slices.Contains(f.Members, who.email) {
			return true
		}
		for _, p := range f.Permissions {
			if p.EmailAddress == who.email || p.Type == "anyone" {
				return true
			}
		}
		if len(f.Parents) == 0 {
			return false
		}
		f = s.files[f.Parents[0]]
	}
	return false
}

// lookup finds a file the caller may use; items of shared drives are
// found only by apps that say they support them (supportsAllDrives), as
// in Google's Drive.
func (s *Server) lookup(w http.ResponseWriter, id string, who principal, q url.Values) *file {
	f := s.files[id]
	if f == nil || !s.canUse(f, who) || f.DriveID != "" && q.Get("supportsAllDrives") != "true" {
		writeError(w, 404, "File not found: %s.", id)
		return nil
	}
	return f
}

func (s *Server) fileJSON(f *file) *drive.File {
	out := &drive.File{Id: f.ID, Name: f.Name, MimeType: f.MimeType, Parents: f.Parents, DriveId: f.DriveID, Kind: "drive#file", AppProperties: f.AppProperties, Version: f.Version}
	if f.MimeType == mimeSheet {
		out.WebViewLink = s.url(f.ID)
	}
	return out
}

func (s *Server) drive(w http.ResponseWriter, r *http.Request, seg []string, body []byte, who principal) {
	q := r.URL.Query()
	for i := range seg {
		if u, err := url.PathUnescape(seg[i]); err == nil {
			seg[i] = u
		}
	}
	may := func(path ...string) bool { return allowed(w, who, s.opt.Drive, path...) }
	switch {
	case len(seg) == 0 && r.Method == http.MethodPost:
		if may("files", "create") {
			s.createFile(w, q, body, who)
		}
	case len(seg) == 0 && r.Method == http.MethodGet:
		if may("files", "list") {
			s.listFiles(w, q, who)
		}
	case len(seg) == 1 && r.Method == http.MethodGet:
		if !may("files", "get") {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if f := s.lookup(w, seg[0], who, q); f != nil {
			writeJSON(w, s.fileJSON(f))
		}
	case len(seg) == 1 && r.Method == http.MethodPatch:
		if may("files", "update") {
			s.updateFile(w, seg[0], q, body, who)
		}
	case len(seg) == 1 && r.Method == http.MethodDelete:
		if !may("files", "delete") {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if f := s.lookup(w, seg[0], who, q); f != nil {
			if f.Owner != who.email && f.DriveID == "" {
				writeError(w, 403, "The user does not have sufficient permissions for this file.")
				return
			}
			delete(s.files, f.ID)
			delete(s.books, f.ID)
			w.WriteHeader(http.StatusNoContent)
		}
	case len(seg) == 2 && seg[1] == "permissions" && r.Method == http.MethodPost:
		if may("permissions", "create") {
			s.createPermission(w, seg[0], q, body, who)
		}
	default:
		writeError(w, 404, "no such method %s %s", r.Method, r.URL.Path)
	}
}

func (s *Server) createFile(w http.ResponseWriter, q url.Values, body []byte, who principal) {
	var req drive.File
	if !decode(w, s.opt.Drive, s.opt.Drive.RequestSchema("files", "create"), body, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(req.Parents) > 1 {
		writeError(w, 403, "A shared drive item must have exactly one parent.")
		return
	}
	f := &file{Name: req.Name, MimeType: req.MimeType, Parents: []string{"root"}, Owner: who.email, AppProperties: req.AppProperties}
	if len(req.Parents) == 1 {
		parent := s.lookup(w, req.Parents[0], who, q)
		if parent == nil {
			return
		}
		if parent.MimeType != mimeFolder {
			writeError(w, 400, "The specified parent is not a folder.")
			return
		}
		f.Parents, f.DriveID = []string{parent.ID}, parent.DriveID
	}
	if f.DriveID != "" {
		f.Owner = "" // a shared drive owns its files
	} else if who.serviceAccount {
		writeReason(w, 403, "storageQuotaExceeded", "%s", errNoQuota)
		return
	}
	if f.Name == "" {
		f.Name = "Untitled"
	}
	f.ID = s.newID()
	switch f.MimeType {
	case mimeSheet:
		b, err := s.newBook(f.ID, f.Name, []*sheetsapi.SheetProperties{{Title: "Sheet1"}}, nil)
		if err != nil {
			writeError(w, 400, "%v", err)
			return
		}
		s.books[f.ID] = b
	case mimeFolder:
	default:
		writeError(w, 400, "The fake creates spreadsheets and folders only, not %q.", f.MimeType)
		return
	}
	f.Version = 1
	s.files[f.ID] = f
	writeJSON(w, s.fileJSON(f))
}

func (s *Server) updateFile(w http.ResponseWriter, id string, q url.Values, body []byte, who principal) {
	var req drive.File
	if !decode(w, s.opt.Drive, s.opt.Drive.RequestSchema("files", "update"), body, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.lookup(w, id, who, q)
	if f == nil {
		return
	}
	parents := slices.Clone(f.Parents)
	for _, p := range splitIDs(q.Get("removeParents")) {
		parents = slices.DeleteFunc(parents, func(x string) bool { return x == p })
	}
	driveID := f.DriveID
	for _, p := range splitIDs(q.Get("addParents")) {
		parent := s.lookup(w, p, who, q)
		if parent == nil {
			return
		}
		if parent.MimeType != mimeFolder {
			writeError(w, 400, "The specified parent is not a folder.")
			return
		}
		parents, driveID = append(parents, p), parent.DriveID
	}
	if len(parents) > 1 {
		writeError(w, 403, "Increasing the number of parents is not allowed. A file can only have one parent.")
		return
	}
	if req.Name != "" {
		f.Name = req.Name
		if b := s.books[id]; b != nil {
			b.title = req.Name
		}
	}
	f.Parents, f.DriveID = parents, driveID
	s.touch(id)
	writeJSON(w, s.fileJSON(f))
}

func splitIDs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var (
	permTypes = []string{"user", "group", "domain", "anyone"}
	permRoles = []string{"owner", "organizer", "fileOrganizer", "writer", "commenter", "reader"}
)

func (s *Server) createPermission(w http.ResponseWriter, id string, q url.Values, body []byte, who principal) {
	var p drive.Permission
	if !decode(w, s.opt.Drive, s.opt.Drive.RequestSchema("permissions", "create"), body, &p) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.lookup(w, id, who, q)
	if f == nil {
		return
	}
	switch {
	case !slices.Contains(permTypes, p.Type):
		writeError(w, 400, "The permission type field is required and must be one of user, group, domain, anyone.")
		return
	case !slices.Contains(permRoles, p.Role):
		writeError(w, 400, "The permission role field is required.")
		return
	case p.Role == "owner" && q.Get("transferOwnership") != "true":
		writeError(w, 403, "The transferOwnership parameter must be enabled when the permission role is 'owner'.")
		return
	case (p.Type == "user" || p.Type == "group") && !validEmail(p.EmailAddress):
		writeError(w, 400, "Bad Request. User message: \"Invalid email address: %s\"", p.EmailAddress)
		return
	case q.Get("emailMessage") != "" && q.Get("sendNotificationEmail") == "false":
		writeError(w, 400, "An email message was given, but notification emails are turned off.")
		return
	}
	np := &drive.Permission{Id: s.newID(), Type: p.Type, Role: p.Role, EmailAddress: p.EmailAddress, Kind: "drive#permission"}
	f.Permissions = append(f.Permissions, np)
	f.Version++
	if q.Get("sendNotificationEmail") != "false" && p.EmailAddress != "" {
		f.Mails = append(f.Mails, Mail{To: p.EmailAddress, Role: p.Role, Message: q.Get("emailMessage")})
	}
	writeJSON(w, np)
}

// validEmail is the rough check Drive makes before it mails someone.
func validEmail(e string) bool {
	at := strings.LastIndexByte(e, '@')
	return at > 0 && at < len(e)-1 && !strings.ContainsAny(e, " ,;<>") && strings.Contains(e[at:], ".")
}

var (
	appPropTerm = regexp.MustCompile(`^appProperties has \{ *key *= *'((?:[^'\\]|\\.)*)' +and +value *= *'((?:[^'\\]|\\.)*)' *\}$`)
	parentTerm  = regexp.MustCompile(`^'((?:[^'\\]|\\.)*)' +in +parents$`)
	mimeTerm    = regexp.MustCompile(`^mimeType *= *'((?:[^'\\]|\\.)*)'$`)
	trashedTerm = regexp.MustCompile(`^trashed *= *(true|false)$`)
	andSplit    = regexp.MustCompile(` +and +`)
)

// unquote undoes the escapes of a query string literal.
func unquote(s string) string {
	return strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(s)
}

// listFiles answers files.list for the queries the fake understands:
// terms joined by "and" of appProperties has { key='K' and value='V' },
// 'ID' in parents, mimeType = 'M' and trashed = false. Items of shared
// drives are listed only for corpora allDrives with
// includeItemsFromAllDrives, as in Drive.
func (s *Server) listFiles(w http.ResponseWriter, q url.Values, who principal) {
	type cond func(*file) bool
	var conds []cond
	query := strings.TrimSpace(q.Get("q"))
	// The appProperties term holds an "and" of its own: take it out first.
	for {
		i := strings.Index(query, "appProperties has {")
		if i < 0 {
			break
		}
		j := strings.Index(query[i:], "}")
		if j < 0 {
			writeError(w, 400, "Invalid Value")
			return
		}
		m := appPropTerm.FindStringSubmatch(query[i : i+j+1])
		if m == nil {
			writeError(w, 400, "Invalid Value")
			return
		}
		k, v := unquote(m[1]), unquote(m[2])
		conds = append(conds, func(f *file) bool { return f.AppProperties[k] == v })
		query = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(query[:i]), "and") + " " + strings.TrimPrefix(strings.TrimSpace(query[i+j+1:]), "and"))
	}
	if query != "" {
		for _, term := range andSplit.Split(query, -1) {
			term = strings.TrimSpace(term)
			switch {
			case parentTerm.MatchString(term):
				p := unquote(parentTerm.FindStringSubmatch(term)[1])
				conds = append(conds, func(f *file) bool { return slices.Contains(f.Parents, p) })
			case mimeTerm.MatchString(term):
				m := unquote(mimeTerm.FindStringSubmatch(term)[1])
				conds = append(conds, func(f *file) bool { return f.MimeType == m })
			case trashedTerm.MatchString(term):
				if trashedTerm.FindStringSubmatch(term)[1] == "true" {
					conds = append(conds, func(*file) bool { return false }) // nothing is trashed
				}
			default:
				writeError(w, 400, "Invalid Value")
				return
			}
		}
	}
	allDrives := q.Get("corpora") == "allDrives" && q.Get("includeItemsFromAllDrives") == "true" && q.Get("supportsAllDrives") == "true"
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &drive.FileList{Kind: "drive#fileList", Files: []*drive.File{}}
	ids := make([]string, 0, len(s.files))
	for id := range s.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
next:
	for _, id := range ids {
		f := s.files[id]
		if !s.canUse(f, who) || f.DriveID != "" && !allDrives {
			continue
		}
		for _, c := range conds {
			if !c(f) {
				continue next
			}
		}
		out.Files = append(out.Files, s.fileJSON(f))
	}
	writeJSON(w, out)
}

// about answers about.get: who the caller is. Drive requires fields.
func (s *Server) about(w http.ResponseWriter, r *http.Request, who principal) {
	if !allowed(w, who, s.opt.Drive, "about", "get") {
		return
	}
	if r.URL.Query().Get("fields") == "" {
		writeError(w, 400, "The 'fields' parameter is required for this method.")
		return
	}
	writeJSON(w, &drive.About{Kind: "drive#about", User: &drive.User{Kind: "drive#user", EmailAddress: who.email, DisplayName: who.email, Me: true}})
}
