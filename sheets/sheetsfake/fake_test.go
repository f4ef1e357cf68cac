package sheetsfake_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"
	drive "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
)

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const (
	scopeDriveFile    = "https://www.googleapis.com/auth/drive.file"
	scopeSpreadsheets = "https://www.googleapis.com/auth/spreadsheets"
	mimeSheet         = "application/vnd.google-apps.spreadsheet"
	mimeFolder        = "application/vnd.google-apps.folder"
	saEmail           = "sa@proj.iam.gserviceaccount.com"
	redirectURI       = "http://127.0.0.1:53682/cb"
	jwtGrant          = "urn:ietf:params:oauth:grant-type:jwt-bearer"

	msgNoQuota      = "Service Accounts do not have storage quota. Leverage shared drives (https://developers.google.com/workspace/drive/api/guides/about-shareddrives), or use OAuth delegation instead."
	msgNoCredential = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	msgBadToken     = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
	msgTooLong      = "Your input contains more than the maximum of 50000 characters in a single cell."
	msgNotFound     = "Requested entity was not found."
)

// The discovery documents are read once for the whole test binary: finding
// them runs the go command, which is too slow to do for every fake.
var docs struct {
	once          sync.Once
	sheets, drive *sheetsfake.Discovery
	err           error
}

func discovery(t *testing.T) (*sheetsfake.Discovery, *sheetsfake.Discovery) {
	t.Helper()
	docs.once.Do(func() {
		sp, dp, err := sheetsfake.FindDiscovery()
		if err != nil {
			docs.err = err
			return
		}
		if docs.sheets, err = sheetsfake.LoadDiscovery(sp); err != nil {
			docs.err = err
			return
		}
		docs.drive, docs.err = sheetsfake.LoadDiscovery(dp)
	})
	if docs.err != nil {
		t.Fatal(docs.err)
	}
	return docs.sheets, docs.drive
}

// env is a running fake with typed clients that send no token.
type env struct {
	fake   *sheetsfake.Server
	url    string
	sheets *sheetsapi.Service
	drive  *drive.Service
}

func start(t *testing.T, opt sheetsfake.Options) *env {
	t.Helper()
	opt.Sheets, opt.Drive = discovery(t)
	fake, srv, err := sheetsfake.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return &env{fake: fake, url: srv.URL, sheets: sheetsClient(t, srv.URL, ""), drive: driveClient(t, srv.URL, "")}
}

// bearer sends an access token with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(token string) *http.Client {
	if token == "" {
		return http.DefaultClient
	}
	return &http.Client{Transport: bearer(token)}
}

func sheetsClient(t *testing.T, base, token string) *sheetsapi.Service {
	t.Helper()
	svc, err := sheetsapi.NewService(context.Background(), option.WithEndpoint(base+"/"), option.WithHTTPClient(httpClient(token)))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func driveClient(t *testing.T, base, token string) *drive.Service {
	t.Helper()
	svc, err := drive.NewService(context.Background(), option.WithEndpoint(base+"/drive/v3/"), option.WithHTTPClient(httpClient(token)))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// reply is a raw HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends a raw request; body "" sends none, token "" sends no
// Authorization header.
func do(t *testing.T, method, u, body, token string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

// googleError is Google's JSON error body.
type googleError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

// wantRawError checks a raw answer is Google's error with this code, status
// name and a message containing msg.
func wantRawError(t *testing.T, r reply, code int, status, msg string) {
	t.Helper()
	if r.status != code {
		t.Fatalf("status = %d, want %d; body %s", r.status, code, r.body)
	}
	var ge googleError
	if err := json.Unmarshal(r.body, &ge); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	if ge.Error.Code != code || ge.Error.Status != status || !strings.Contains(ge.Error.Message, msg) {
		t.Errorf("error = %+v, want code %d, status %s, message containing %q", ge.Error, code, status, msg)
	}
}

// wantAPIError checks a typed client's error is a *googleapi.Error with
// this code and a message containing msg.
func wantAPIError(t *testing.T, err error, code int, msg string) {
	t.Helper()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) {
		t.Fatalf("err = %v, want a *googleapi.Error %d %q", err, code, msg)
	}
	if gerr.Code != code || !strings.Contains(gerr.Message, msg) {
		t.Errorf("err = %d %q, want %d containing %q", gerr.Code, gerr.Message, code, msg)
	}
}

func ptr[T any](v T) *T { return &v }

var (
	ignoreServer = cmpopts.IgnoreTypes(googleapi.ServerResponse{})
	equateEmpty  = cmpopts.EquateEmpty()
)

// newBook creates a spreadsheet with these sheets (Sheet1 when none).
func newBook(t *testing.T, svc *sheetsapi.Service, sheets ...*sheetsapi.SheetProperties) string {
	t.Helper()
	req := &sheetsapi.Spreadsheet{}
	for _, p := range sheets {
		req.Sheets = append(req.Sheets, &sheetsapi.Sheet{Properties: p})
	}
	sp, err := svc.Spreadsheets.Create(req).Do()
	if err != nil {
		t.Fatal(err)
	}
	return sp.SpreadsheetId
}

func batch(svc *sheetsapi.Service, id string, reqs ...*sheetsapi.Request) (*sheetsapi.BatchUpdateSpreadsheetResponse, error) {
	return svc.Spreadsheets.BatchUpdate(id, &sheetsapi.BatchUpdateSpreadsheetRequest{Requests: reqs}).Do()
}

func mustBatch(t *testing.T, svc *sheetsapi.Service, id string, reqs ...*sheetsapi.Request) *sheetsapi.BatchUpdateSpreadsheetResponse {
	t.Helper()
	resp, err := batch(svc, id, reqs...)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func writeValues(svc *sheetsapi.Service, id, rng, input string, rows ...[]any) (*sheetsapi.UpdateValuesResponse, error) {
	return svc.Spreadsheets.Values.Update(id, rng, &sheetsapi.ValueRange{Values: rows}).ValueInputOption(input).Do()
}

func mustWrite(t *testing.T, svc *sheetsapi.Service, id, rng, input string, rows ...[]any) {
	t.Helper()
	if _, err := writeValues(svc, id, rng, input, rows...); err != nil {
		t.Fatalf("write %s: %v", rng, err)
	}
}

func readValues(t *testing.T, svc *sheetsapi.Service, id, rng, render string) [][]any {
	t.Helper()
	call := svc.Spreadsheets.Values.Get(id, rng)
	if render != "" {
		call = call.ValueRenderOption(render)
	}
	vr, err := call.Do()
	if err != nil {
		t.Fatalf("read %s: %v", rng, err)
	}
	return vr.Values
}

func withGrid(t *testing.T, svc *sheetsapi.Service, id string) *sheetsapi.Spreadsheet {
	t.Helper()
	sp, err := svc.Spreadsheets.Get(id).IncludeGridData(true).Do()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// cellAt is a cell of the grid data of sheet i, or nil.
func cellAt(sp *sheetsapi.Spreadsheet, i, r, c int) *sheetsapi.CellData {
	d := sp.Sheets[i].Data
	if len(d) == 0 || r >= len(d[0].RowData) || c >= len(d[0].RowData[r].Values) {
		return nil
	}
	return d[0].RowData[r].Values[c]
}

func grid(sheet, r0, r1, c0, c1 int64) *sheetsapi.GridRange {
	return &sheetsapi.GridRange{SheetId: sheet, StartRowIndex: r0, EndRowIndex: r1, StartColumnIndex: c0, EndColumnIndex: c1}
}

func setCells(sheet, row, col int64, fields string, cells ...*sheetsapi.CellData) *sheetsapi.Request {
	return &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{
		Start:  &sheetsapi.GridCoordinate{SheetId: sheet, RowIndex: row, ColumnIndex: col},
		Rows:   []*sheetsapi.RowData{{Values: cells}},
		Fields: fields,
	}}
}

func setString(sheet, row, col int64, s string) *sheetsapi.Request {
	return setCells(sheet, row, col, "userEnteredValue", &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr(s)}})
}

// rowSize sets the height of a row of sheet 0, and whether it is hidden.
func rowSize(row, pixels int64, hidden bool) *sheetsapi.Request {
	return &sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
		Range:      &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: row, EndIndex: row + 1},
		Properties: &sheetsapi.DimensionProperties{PixelSize: pixels, HiddenByUser: hidden},
		Fields:     "pixelSize,hiddenByUser",
	}}
}

func listRule(values ...string) *sheetsapi.DataValidationRule {
	r := &sheetsapi.DataValidationRule{Condition: &sheetsapi.BooleanCondition{Type: "ONE_OF_LIST"}, Strict: true, ShowCustomUi: true}
	for _, v := range values {
		r.Condition.Values = append(r.Condition.Values, &sheetsapi.ConditionValue{UserEnteredValue: v})
	}
	return r
}

var red = &sheetsapi.CellFormat{BackgroundColor: &sheetsapi.Color{Red: 1}}

// --- OAuth helpers ---

// installed is the "installed" part of a client secret file.
type installed struct {
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret"`
	ProjectID    string   `json:"project_id"`
	AuthURI      string   `json:"auth_uri"`
	TokenURI     string   `json:"token_uri"`
	RedirectURIs []string `json:"redirect_uris"`
}

func clientSecret(t *testing.T, fake *sheetsfake.Server) installed {
	t.Helper()
	var f struct {
		Installed installed `json:"installed"`
	}
	if err := json.Unmarshal(fake.ClientSecretJSON(), &f); err != nil {
		t.Fatal(err)
	}
	return f.Installed
}

// s256 is the PKCE S256 challenge of a verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// browser does not follow the consent screen's redirect, so the test can
// read the code from it as the app's loopback listener would.
var browser = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func authParams(c installed, scope, verifier string) url.Values {
	return url.Values{
		"response_type":         {"code"},
		"client_id":             {c.ClientID},
		"redirect_uri":          {redirectURI},
		"scope":                 {scope},
		"state":                 {"st-42"},
		"code_challenge":        {s256(verifier)},
		"code_challenge_method": {"S256"},
	}
}

// authorize visits the consent screen and returns its status, the redirect
// (nil when none) and the body.
func authorize(t *testing.T, c installed, q url.Values) (int, *url.URL, string) {
	t.Helper()
	resp, err := browser.Get(c.AuthURI + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var loc *url.URL
	if l := resp.Header.Get("Location"); l != "" {
		if loc, err = url.Parse(l); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, loc, string(b)
}

// codeFor runs the consent screen and returns the code.
func codeFor(t *testing.T, c installed, scope, verifier string) string {
	t.Helper()
	status, loc, body := authorize(t, c, authParams(c, scope, verifier))
	if status != http.StatusFound || loc == nil {
		t.Fatalf("auth = %d %q, want a redirect", status, body)
	}
	return loc.Query().Get("code")
}

// postToken posts a form to the token endpoint.
func postToken(t *testing.T, tokenURI string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(tokenURI, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("token answer: %v", err)
	}
	return resp.StatusCode, out
}

func exchangeForm(c installed, code, verifier string) url.Values {
	return url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"code_verifier": {verifier},
		"redirect_uri":  {redirectURI},
		"client_id":     {c.ClientID},
		"client_secret": {c.ClientSecret},
	}
}

func refreshForm(c installed, refresh string) url.Values {
	return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {c.ClientID}, "client_secret": {c.ClientSecret}}
}

// wantOAuthError checks an OAuth error answer.
func wantOAuthError(t *testing.T, status int, out map[string]any, wantStatus int, kind, desc string) {
	t.Helper()
	want := map[string]any{"error": kind, "error_description": desc}
	if status != wantStatus || !cmp.Equal(out, want) {
		t.Errorf("token = %d %v, want %d %v", status, out, wantStatus, want)
	}
}

// signIn runs the installed-app flow and returns the access and refresh
// tokens.
func signIn(t *testing.T, e *env, scope string) (access, refresh string) {
	t.Helper()
	c := clientSecret(t, e.fake)
	verifier := "verifier-" + strings.Repeat("x", 43)
	code := codeFor(t, c, scope, verifier)
	status, out := postToken(t, c.TokenURI, exchangeForm(c, code, verifier))
	if status != 200 {
		t.Fatalf("token = %d %v", status, out)
	}
	access, _ = out["access_token"].(string)
	refresh, _ = out["refresh_token"].(string)
	return access, refresh
}

// --- service account helpers ---

type saKey struct {
	Type         string `json:"type"`
	ProjectID    string `json:"project_id"`
	PrivateKeyID string `json:"private_key_id"`
	PrivateKey   string `json:"private_key"`
	ClientEmail  string `json:"client_email"`
	ClientID     string `json:"client_id"`
	AuthURI      string `json:"auth_uri"`
	TokenURI     string `json:"token_uri"`
}

func newSAKey(t *testing.T, fake *sheetsfake.Server, email string) (saKey, *rsa.PrivateKey, []byte) {
	t.Helper()
	raw, err := fake.NewServiceAccountKey(email)
	if err != nil {
		t.Fatal(err)
	}
	var k saKey
	if err := json.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(k.PrivateKey))
	if block == nil || block.Type != "PRIVATE KEY" {
		t.Fatalf("private_key is not a PKCS8 PEM block: %q", k.PrivateKey)
	}
	pk, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	rk, ok := pk.(*rsa.PrivateKey)
	if !ok {
		t.Fatalf("private key is %T, want RSA", pk)
	}
	return k, rk, raw
}

func b64json(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signJWT makes a JWT with this header and claims, signed RS256.
func signJWT(t *testing.T, key *rsa.PrivateKey, header, claims map[string]any) string {
	t.Helper()
	in := b64json(header) + "." + b64json(claims)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return in + "." + base64.RawURLEncoding.EncodeToString(sig)
}

var rs256 = map[string]any{"alg": "RS256", "typ": "JWT"}

func saClaims(iss, aud string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": iss, "scope": scopeDriveFile, "aud": aud, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
}

// saToken exchanges a signed JWT for an access token.
func saToken(t *testing.T, k saKey, key *rsa.PrivateKey) string {
	t.Helper()
	status, out := postToken(t, k.TokenURI, url.Values{"grant_type": {jwtGrant}, "assertion": {signJWT(t, key, rs256, saClaims(k.ClientEmail, k.TokenURI))}})
	if status != 200 {
		t.Fatalf("jwt grant = %d %v", status, out)
	}
	return out["access_token"].(string)
}

// ---------------------------------------------------------------------------
// Discovery documents
// ---------------------------------------------------------------------------

func TestDiscovery(t *testing.T) {
	sd, dd := discovery(t)

	t.Run("found in the module", func(t *testing.T) {
		sp, dp, err := sheetsfake.FindDiscovery()
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(sp) != "sheets-api.json" || filepath.Base(dp) != "drive-api.json" {
			t.Errorf("FindDiscovery = %s, %s", sp, dp)
		}
		if sd.Path != sp || dd.Path != dp {
			t.Errorf("loaded paths %s, %s; found %s, %s", sd.Path, dd.Path, sp, dp)
		}
	})

	t.Run("ANNOSHEET_DISCOVERY_DIR", func(t *testing.T) {
		dir := t.TempDir()
		for _, p := range []string{sd.Path, dd.Path} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("ANNOSHEET_DISCOVERY_DIR", dir)
		sp, dp, err := sheetsfake.FindDiscovery()
		if err != nil || sp != filepath.Join(dir, "sheets-api.json") || dp != filepath.Join(dir, "drive-api.json") {
			t.Errorf("FindDiscovery = %s, %s, %v; want the files in %s", sp, dp, err, dir)
		}
		empty := t.TempDir()
		t.Setenv("ANNOSHEET_DISCOVERY_DIR", empty)
		if _, _, err := sheetsfake.FindDiscovery(); err == nil || !strings.Contains(err.Error(), "ANNOSHEET_DISCOVERY_DIR="+empty) {
			t.Errorf("FindDiscovery in an empty dir: err = %v", err)
		}
	})

	t.Run("LoadDiscovery errors", func(t *testing.T) {
		if _, err := sheetsfake.LoadDiscovery(filepath.Join(t.TempDir(), "none.json")); err == nil {
			t.Error("a missing file loaded")
		}
		bad := filepath.Join(t.TempDir(), "bad.json")
		os.WriteFile(bad, []byte("{"), 0o644)
		if _, err := sheetsfake.LoadDiscovery(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("bad JSON: err = %v", err)
		}
	})

	t.Run("RequestSchema", func(t *testing.T) {
		for _, tc := range []struct {
			doc  *sheetsfake.Discovery
			path []string
			want string
		}{
			{sd, []string{"spreadsheets", "create"}, "Spreadsheet"},
			{sd, []string{"spreadsheets", "batchUpdate"}, "BatchUpdateSpreadsheetRequest"},
			{sd, []string{"spreadsheets", "values", "update"}, "ValueRange"},
			{sd, []string{"spreadsheets", "values", "batchUpdate"}, "BatchUpdateValuesRequest"},
			{sd, []string{"spreadsheets", "get"}, ""},
			{sd, []string{"nope", "create"}, ""},
			{sd, []string{"create"}, ""},
			{dd, []string{"files", "create"}, "File"},
			{dd, []string{"files", "update"}, "File"},
			{dd, []string{"permissions", "create"}, "Permission"},
		} {
			if got := tc.doc.RequestSchema(tc.path...); got != tc.want {
				t.Errorf("RequestSchema(%v) = %q, want %q", tc.path, got, tc.want)
			}
		}
	})

	t.Run("Validate", func(t *testing.T) {
		for _, tc := range []struct {
			name, schema, body, want string
			doc                      *sheetsfake.Discovery
		}{
			{"valid", "Spreadsheet", `{"properties":{"title":"t"},"sheets":[{"properties":{"sheetId":3,"gridProperties":{"rowCount":5}}}]}`, "", sd},
			{"unknown top-level field", "Spreadsheet", `{"bogus":1}`, `Invalid JSON payload received. Unknown name "bogus": Cannot find field.`, sd},
			{"unknown nested field", "BatchUpdateSpreadsheetRequest", `{"requests":[{"addSheet":{"properties":{"title":"x","bogus":1}}}]}`, `Invalid JSON payload received. Unknown name "bogus" at 'requests[0].addSheet.properties': Cannot find field.`, sd},
			{"object instead of list", "BatchUpdateSpreadsheetRequest", `{"requests":{}}`, `Invalid JSON payload received. Expected a list at 'requests'.`, sd},
			{"string instead of object", "BatchUpdateSpreadsheetRequest", `{"requests":[{"addSheet":"x"}]}`, `Invalid JSON payload received. Expected an object at 'requests[0].addSheet'.`, sd},
			{"bad enum", "BatchUpdateSpreadsheetRequest", `{"requests":[{"insertDimension":{"range":{"dimension":"DIAGONAL"}}}]}`, `Invalid value at 'requests[0].insertDimension.range.dimension' (TYPE_ENUM), "DIAGONAL"`, sd},
			{"good enum", "BatchUpdateSpreadsheetRequest", `{"requests":[{"insertDimension":{"range":{"dimension":"ROWS"}}}]}`, "", sd},
			{"fraction for int32", "BatchUpdateSpreadsheetRequest", `{"requests":[{"addSheet":{"properties":{"gridProperties":{"rowCount":1.5}}}}]}`, `Invalid value at 'requests[0].addSheet.properties.gridProperties.rowCount' (TYPE_INT32), 1.5`, sd},
			{"number for string", "BatchUpdateSpreadsheetRequest", `{"requests":[{"addSheet":{"properties":{"title":5}}}]}`, `Invalid value at 'requests[0].addSheet.properties.title' (TYPE_STRING), 5`, sd},
			{"string for bool", "BatchUpdateSpreadsheetRequest", `{"requests":[{"insertDimension":{"inheritFromBefore":"yes"}}]}`, `Invalid value at 'requests[0].insertDimension.inheritFromBefore' (TYPE_BOOL), yes`, sd},
			{"string for double", "BatchUpdateSpreadsheetRequest", `{"requests":[{"updateCells":{"rows":[{"values":[{"userEnteredValue":{"numberValue":"3"}}]}]}}]}`, `Invalid value at 'requests[0].updateCells.rows[0].values[0].userEnteredValue.numberValue' (TYPE_DOUBLE), 3`, sd},
			{"null is unset", "BatchUpdateSpreadsheetRequest", `{"requests":[{"addSheet":null}]}`, "", sd},
			{"values hold anything", "ValueRange", `{"values":[["a",1,true,null]]}`, "", sd},
			{"int64 as string", "File", `{"size":"12"}`, "", dd},
			{"int64 as number", "File", `{"size":12}`, "", dd},
			{"drive list", "File", `{"parents":"x"}`, `Invalid JSON payload received. Expected a list at 'parents'.`, dd},
			{"drive unknown field", "Permission", `{"role":"writer","bogus":true}`, `Invalid JSON payload received. Unknown name "bogus": Cannot find field.`, dd},
			{"unknown schema", "Nope", `{}`, "unknown schema Nope", sd},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dec := json.NewDecoder(strings.NewReader(tc.body))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				if got := tc.doc.Validate(tc.schema, v); got != tc.want {
					t.Errorf("Validate = %q, want %q", got, tc.want)
				}
			})
		}
	})
}

// TestRequestBodies sends bodies the typed clients would never send and
// checks the fake refuses them as Google does, leaving the state alone.
func TestRequestBodies(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets)
	bu := e.url + "/v4/spreadsheets/" + id + ":batchUpdate"
	for _, tc := range []struct {
		name, method, url, body string
		status                  int
		msg                     string
	}{
		{"unknown field in addSheet", "POST", bu, `{"requests":[{"addSheet":{"properties":{"title":"x","bogus":1}}}]}`, 400, `Invalid JSON payload received. Unknown name "bogus" at 'requests[0].addSheet.properties': Cannot find field.`},
		{"unknown request kind", "POST", bu, `{"requests":[{"addSheets":{}}]}`, 400, `Unknown name "addSheets" at 'requests[0]'`},
		{"bad dimension enum", "POST", bu, `{"requests":[{"insertDimension":{"range":{"sheetId":0,"dimension":"DIAGONAL","startIndex":0,"endIndex":1}}}]}`, 400, `Invalid value at 'requests[0].insertDimension.range.dimension' (TYPE_ENUM), "DIAGONAL"`},
		{"string for int", "POST", bu, `{"requests":[{"addSheet":{"properties":{"title":"x","gridProperties":{"rowCount":"many"}}}}]}`, 400, `Invalid value at 'requests[0].addSheet.properties.gridProperties.rowCount' (TYPE_INT32), many`},
		{"object for list", "POST", bu, `{"requests":{"addSheet":{}}}`, 400, `Invalid JSON payload received. Expected a list at 'requests'.`},
		{"malformed JSON", "POST", bu, `{"requests":[`, 400, "Invalid JSON payload received."},
		{"no requests", "POST", bu, `{"requests":[]}`, 400, "Invalid requests: at least one request is required."},
		{"unknown field in create", "POST", e.url + "/v4/spreadsheets", `{"properties":{"title":"t","colour":"red"}}`, 400, `Unknown name "colour" at 'properties'`},
		{"unknown field in values.update", "PUT", e.url + "/v4/spreadsheets/" + id + "/values/Sheet1!A1?valueInputOption=RAW", `{"values":[["x"]],"bogus":1}`, 400, `Unknown name "bogus": Cannot find field.`},
		{"bad enum in values.update", "PUT", e.url + "/v4/spreadsheets/" + id + "/values/Sheet1!A1?valueInputOption=RAW", `{"values":[["x"]],"majorDimension":"SIDEWAYS"}`, 400, `Invalid value at 'majorDimension' (TYPE_ENUM), "SIDEWAYS"`},
		{"values not a list", "PUT", e.url + "/v4/spreadsheets/" + id + "/values/Sheet1!A1?valueInputOption=RAW", `{"values":"x"}`, 400, `Expected a list at 'values'`},
		{"unknown field in values.batchUpdate", "POST", e.url + "/v4/spreadsheets/" + id + "/values:batchUpdate", `{"valueInputOption":"RAW","data":[{"range":"Sheet1!A1","values":[["x"]],"extra":0}]}`, 400, `Unknown name "extra" at 'data[0]'`},
		{"unknown field in files.create", "POST", e.url + "/drive/v3/files", `{"name":"n","mimeType":"` + mimeSheet + `","folder":"x"}`, 400, `Unknown name "folder": Cannot find field.`},
		{"unknown field in permissions.create", "POST", e.url + "/drive/v3/files/" + id + "/permissions", `{"role":"writer","type":"user","email":"a@b.org"}`, 400, `Unknown name "email": Cannot find field.`},
		{"no such method", "DELETE", e.url + "/v4/spreadsheets/" + id, "", 404, "no such method DELETE /v4/spreadsheets/" + id},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantRawError(t, do(t, tc.method, tc.url, tc.body, ""), tc.status, map[int]string{400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}[tc.status], tc.msg)
		})
	}

	t.Run("refused bodies changed nothing", func(t *testing.T) {
		sp, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		if len(sp.Sheets) != 1 || sp.Sheets[0].Properties.Title != "Sheet1" || sp.Sheets[0].Properties.GridProperties.RowCount != 1000 {
			t.Errorf("sheets after refusals: %+v", sp.Sheets[0].Properties)
		}
		if got := readValues(t, e.sheets, id, "Sheet1", ""); got != nil {
			t.Errorf("values after refusals: %v", got)
		}
		if got := e.fake.Spreadsheets(); len(got) != 1 {
			t.Errorf("spreadsheets after refusals: %v", got)
		}
	})

	t.Run("valid raw request passes", func(t *testing.T) {
		r := do(t, "POST", bu, `{"requests":[{"addSheet":{"properties":{"title":"x","sheetId":9,"gridProperties":{"rowCount":3,"columnCount":2}}}}]}`, "")
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		var resp sheetsapi.BatchUpdateSpreadsheetResponse
		if err := json.Unmarshal(r.body, &resp); err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.SheetProperties{SheetId: 9, Title: "x", Index: 1, SheetType: "GRID", GridProperties: &sheetsapi.GridProperties{RowCount: 3, ColumnCount: 2}}
		if len(resp.Replies) != 1 || resp.Replies[0].AddSheet == nil {
			t.Fatalf("replies = %s", r.body)
		}
		if d := cmp.Diff(want, resp.Replies[0].AddSheet.Properties); d != "" {
			t.Errorf("addSheet reply (-want +got):\n%s", d)
		}
	})
}

// TestOmittedObjects sends requests without an object they use. A field
// mask update reads an absent message as its defaults, as Google does;
// a request without the range it acts on is refused. None may break the
// connection.
func TestOmittedObjects(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 5, FrozenRowCount: 2, FrozenColumnCount: 1}})
	mustBatch(t, e.sheets, id, &sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
		Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "COLUMNS", StartIndex: 0, EndIndex: 1}, Properties: &sheetsapi.DimensionProperties{PixelSize: 300, HiddenByUser: true}, Fields: "pixelSize,hiddenByUser",
	}})
	bu := e.url + "/v4/spreadsheets/" + id + ":batchUpdate"
	send := func(t *testing.T, req string) reply { return do(t, "POST", bu, `{"requests":[`+req+`]}`, "") }

	t.Run("defaults", func(t *testing.T) {
		for _, req := range []string{
			`{"updateSheetProperties":{"fields":"gridProperties.frozenRowCount"}}`,
			`{"updateSheetProperties":{"properties":{"sheetId":0},"fields":"gridProperties.frozenColumnCount"}}`,
			`{"updateDimensionProperties":{"range":{"sheetId":0,"dimension":"COLUMNS","startIndex":0,"endIndex":1},"fields":"hiddenByUser"}}`,
			`{"updateSpreadsheetProperties":{"fields":"title"}}`,
		} {
			if r := send(t, req); r.status != 200 {
				t.Errorf("%s: %d %s", req, r.status, r.body)
			}
		}
		sp := withGrid(t, e.sheets, id)
		if g := sp.Sheets[0].Properties.GridProperties; g.FrozenRowCount != 0 || g.FrozenColumnCount != 0 || g.RowCount != 10 {
			t.Errorf("grid properties = %+v, want nothing frozen and the size kept", g)
		}
		if m := sp.Sheets[0].Data[0].ColumnMetadata[0]; m.HiddenByUser || m.PixelSize != 300 {
			t.Errorf("column A = %+v, want shown and still 300 pixels", m)
		}
		if sp.Properties.Title != "" {
			t.Errorf("title = %q, want the default, empty", sp.Properties.Title)
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct{ req, msg string }{
			{`{"repeatCell":{"cell":{"note":"n"},"fields":"note"}}`, "range must be set"},
			{`{"setDataValidation":{"rule":{"condition":{"type":"BOOLEAN"}}}}`, "range must be set"},
			{`{"mergeCells":{"mergeType":"MERGE_ALL"}}`, "range must be set"},
			{`{"insertDimension":{"inheritFromBefore":true}}`, "range must be set"},
			{`{"updateDimensionProperties":{"properties":{"pixelSize":5},"fields":"pixelSize"}}`, "range must be set"},
			{`{"addProtectedRange":{}}`, "protectedRange must be set"},
			{`{"addProtectedRange":{"protectedRange":{"description":"d"}}}`, "protectedRange.range must be set"},
			{`{"setBasicFilter":{}}`, "filter must be set"},
			{`{"setBasicFilter":{"filter":{}}}`, "filter.range must be set"},
			{`{"updateSheetProperties":{"properties":{"sheetId":0}}}`, "At least one field must be updated, but none specified."},
			{`{"repeatCell":{"range":{"sheetId":0},"cell":{"note":"n"}}}`, "At least one field must be updated, but none specified."},
		} {
			t.Run(tc.req, func(t *testing.T) {
				wantRawError(t, send(t, tc.req), 400, "INVALID_ARGUMENT", "Invalid requests[0]: "+tc.msg)
			})
		}
		sp := withGrid(t, e.sheets, id)
		if s := sp.Sheets[0]; s.Merges != nil || s.ProtectedRanges != nil || s.BasicFilter != nil || s.Data[0].RowData != nil {
			t.Errorf("refused requests changed the sheet: %+v", s)
		}
	})
}

// TestPanic checks a panic of the fake reaches the client as Google's 500
// naming it, not as a broken connection, and is logged as such.
func TestPanic(t *testing.T) {
	sd, dd := discovery(t)
	fake, err := sheetsfake.New(sheetsfake.Options{Sheets: sd, Drive: dd})
	if err != nil {
		t.Fatal(err)
	}
	// The clock works once, for the token, then breaks.
	var ticks atomic.Int32
	fake.Now = func() time.Time {
		if ticks.Add(1) > 1 {
			panic("the clock broke")
		}
		return time.Now()
	}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	fake.SetBase(srv.URL)
	e := &env{fake: fake, url: srv.URL}
	access, _ := signIn(t, e, scopeDriveFile)

	r := do(t, "POST", srv.URL+"/v4/spreadsheets", `{}`, access)
	wantRawError(t, r, 500, "INTERNAL", "the fake panicked: the clock broke")
	want := []sheetsfake.Call{{Method: "POST", Path: "/v4/spreadsheets", Bytes: 2, Status: 500}}
	if d := cmp.Diff(want, fake.Calls()); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	// The OAuth endpoints too.
	c := clientSecret(t, fake)
	verifier := strings.Repeat("p", 43)
	resp, err := http.PostForm(c.TokenURI, exchangeForm(c, codeFor(t, c, scopeDriveFile, verifier), verifier))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantRawError(t, reply{resp.StatusCode, resp.Header, b}, 500, "INTERNAL", "the fake panicked: the clock broke")
	// The fake still answers.
	if r := do(t, "GET", srv.URL+"/_fake/calls", "", ""); r.status != 200 {
		t.Errorf("after the panics: %d %s", r.status, r.body)
	}
}

// ExampleStart runs the package documentation's example.
func ExampleStart() {
	ctx := context.Background()
	fake, srv, err := sheetsfake.Start(sheetsfake.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	fake.Inject(sheetsfake.Fault{Match: "batchUpdate", Status: 429, RetryAfter: "1"})
	c, err := sheets.New(ctx, sheets.Options{Endpoint: srv.URL, NoAuth: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	sp, err := c.Sheets.Spreadsheets.Create(&sheetsapi.Spreadsheet{}).Do()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sp.Properties.Title, sp.Sheets[0].Properties.Title)
	// Output: Untitled spreadsheet Sheet1
}

// ---------------------------------------------------------------------------
// spreadsheets.create and sheet properties
// ---------------------------------------------------------------------------

func TestCreate(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	gp := func(rows, cols, frozenRows, frozenCols int64) *sheetsapi.GridProperties {
		return &sheetsapi.GridProperties{RowCount: rows, ColumnCount: cols, FrozenRowCount: frozenRows, FrozenColumnCount: frozenCols}
	}
	for _, tc := range []struct {
		name      string
		req       *sheetsapi.Spreadsheet
		wantTitle string
		want      []*sheetsapi.SheetProperties
		wantErr   string
	}{
		{
			name:      "default Sheet1",
			req:       &sheetsapi.Spreadsheet{},
			wantTitle: "Untitled spreadsheet",
			want:      []*sheetsapi.SheetProperties{{SheetId: 0, Title: "Sheet1", Index: 0, SheetType: "GRID", GridProperties: gp(1000, 26, 0, 0)}},
		},
		{
			name: "sheets with grid properties",
			req: &sheetsapi.Spreadsheet{
				Properties: &sheetsapi.SpreadsheetProperties{Title: "Annotations"},
				Sheets: []*sheetsapi.Sheet{
					{Properties: &sheetsapi.SheetProperties{SheetId: 11, Title: "Data", GridProperties: gp(50, 5, 1, 2)}},
					{Properties: &sheetsapi.SheetProperties{SheetId: 22, Title: "Notes", GridProperties: &sheetsapi.GridProperties{FrozenRowCount: 3}}},
					{Properties: &sheetsapi.SheetProperties{SheetId: 33, Hidden: true}},
				},
			},
			wantTitle: "Annotations",
			want: []*sheetsapi.SheetProperties{
				{SheetId: 11, Title: "Data", Index: 0, SheetType: "GRID", GridProperties: gp(50, 5, 1, 2)},
				{SheetId: 22, Title: "Notes", Index: 1, SheetType: "GRID", GridProperties: gp(1000, 26, 3, 0)},
				{SheetId: 33, Title: "Sheet3", Index: 2, SheetType: "GRID", Hidden: true, GridProperties: gp(1000, 26, 0, 0)},
			},
		},
		{
			name: "duplicate titles",
			req: &sheetsapi.Spreadsheet{Sheets: []*sheetsapi.Sheet{
				{Properties: &sheetsapi.SheetProperties{SheetId: 1, Title: "A"}},
				{Properties: &sheetsapi.SheetProperties{SheetId: 2, Title: "A"}},
			}},
			wantErr: `A sheet with the name "A" already exists. Please enter another name.`,
		},
		{
			name: "duplicate sheet IDs",
			req: &sheetsapi.Spreadsheet{Sheets: []*sheetsapi.Sheet{
				{Properties: &sheetsapi.SheetProperties{SheetId: 5, Title: "A"}},
				{Properties: &sheetsapi.SheetProperties{SheetId: 5, Title: "B"}},
			}},
			wantErr: "Sheet with id 5 already exists.",
		},
		{
			name:    "over ten million cells",
			req:     &sheetsapi.Spreadsheet{Sheets: []*sheetsapi.Sheet{{Properties: &sheetsapi.SheetProperties{GridProperties: gp(100000, 200, 0, 0)}}}},
			wantErr: "This action would increase the number of cells in the workbook above the limit of 10000000 cells.",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.fake.Spreadsheets())
			sp, err := e.sheets.Spreadsheets.Create(tc.req).Do()
			if tc.wantErr != "" {
				wantAPIError(t, err, 400, tc.wantErr)
				if n := len(e.fake.Spreadsheets()); n != before {
					t.Errorf("a refused create left a spreadsheet: %d, was %d", n, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.sheets.Spreadsheets.Get(sp.SpreadsheetId).Do()
			if err != nil {
				t.Fatal(err)
			}
			for what, s := range map[string]*sheetsapi.Spreadsheet{"create": sp, "get": got} {
				var props []*sheetsapi.SheetProperties
				for _, sh := range s.Sheets {
					props = append(props, sh.Properties)
				}
				if d := cmp.Diff(tc.want, props); d != "" {
					t.Errorf("%s: sheets (-want +got):\n%s", what, d)
				}
				if s.Properties.Title != tc.wantTitle {
					t.Errorf("%s: title = %q, want %q", what, s.Properties.Title, tc.wantTitle)
				}
				if want := e.url + "/spreadsheets/d/" + sp.SpreadsheetId + "/edit"; s.SpreadsheetUrl != want {
					t.Errorf("%s: url = %q, want %q", what, s.SpreadsheetUrl, want)
				}
			}
			if !slices.Contains(e.fake.Spreadsheets(), sp.SpreadsheetId) {
				t.Errorf("Spreadsheets() = %v, lacks %s", e.fake.Spreadsheets(), sp.SpreadsheetId)
			}
			if parents, _, _, ok := e.fake.FileInfo(sp.SpreadsheetId); !ok || !cmp.Equal(parents, []string{"root"}) {
				t.Errorf("FileInfo parents = %v, %v; want [root]", parents, ok)
			}
		})
	}

	t.Run("sheets without IDs get one", func(t *testing.T) {
		ids := func(sp *sheetsapi.Spreadsheet) []int64 {
			var out []int64
			for _, sh := range sp.Sheets {
				out = append(out, sh.Properties.SheetId)
			}
			return out
		}
		for _, tc := range []struct {
			name   string
			sheets []*sheetsapi.SheetProperties
			zeroAt int // the sheet that gets ID 0
		}{
			{"none given", []*sheetsapi.SheetProperties{{Title: "A"}, {Title: "B"}, {Title: "C"}}, 0},
			{"0 given to the second", []*sheetsapi.SheetProperties{{Title: "A"}, {Title: "B", SheetId: 0, ForceSendFields: []string{"SheetId"}}}, 1},
			{"others given", []*sheetsapi.SheetProperties{{Title: "A", SheetId: 1}, {Title: "B"}, {Title: "C", SheetId: 2}, {Title: "D"}}, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sp, err := e.sheets.Spreadsheets.Get(newBook(t, e.sheets, tc.sheets...)).Do()
				if err != nil {
					t.Fatal(err)
				}
				got := ids(sp)
				seen := map[int64]bool{}
				for i, id := range got {
					if seen[id] || (id == 0) != (i == tc.zeroAt) {
						t.Errorf("sheet IDs = %v: want them distinct, 0 for sheet %d only", got, tc.zeroAt)
					}
					seen[id] = true
					if given := tc.sheets[i].SheetId; given != 0 && id != given {
						t.Errorf("sheet %d has ID %d, not the %d it asked for", i, id, given)
					}
				}
			})
		}
		// The sheets added later do not take an ID a sheet has.
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{Title: "A"}, &sheetsapi.SheetProperties{Title: "B"})
		resp := mustBatch(t, e.sheets, id, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{Title: "C"}}})
		sp, _ := e.sheets.Spreadsheets.Get(id).Do()
		if added := resp.Replies[0].AddSheet.Properties.SheetId; slices.Contains(ids(sp)[:2], added) {
			t.Errorf("added sheet has ID %d, which another sheet has: %v", added, ids(sp))
		}
	})

	t.Run("duplicate sheet ID names the right request", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"}, &sheetsapi.SheetProperties{SheetId: 5, Title: "Five"})
		_, err := batch(e.sheets, id,
			&sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{SheetId: 6, Title: "Six"}}},
			&sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{SheetId: 5, Title: "Again"}}})
		wantAPIError(t, err, 400, "Invalid requests[1]: Sheet with id 5 already exists.")
		if err != nil && strings.Contains(err.Error(), "requests[0]") {
			t.Errorf("the error names requests[0]: %v", err)
		}
		_, err = e.sheets.Spreadsheets.Create(&sheetsapi.Spreadsheet{Sheets: []*sheetsapi.Sheet{
			{Properties: &sheetsapi.SheetProperties{SheetId: 5, Title: "A"}},
			{Properties: &sheetsapi.SheetProperties{SheetId: 5, Title: "B"}},
		}}).Do()
		wantAPIError(t, err, 400, "Sheet with id 5 already exists.")
		if err != nil && strings.Contains(err.Error(), "requests[") {
			t.Errorf("spreadsheets.create has no requests, but its error names one: %v", err)
		}
	})

	t.Run("updateSheetProperties", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"}, &sheetsapi.SheetProperties{SheetId: 4, Title: "Other"})
		mustBatch(t, e.sheets, id, &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
			Properties: &sheetsapi.SheetProperties{SheetId: 4, Title: "Renamed", Hidden: true, GridProperties: &sheetsapi.GridProperties{FrozenRowCount: 2, FrozenColumnCount: 1}},
			Fields:     "title,hidden,gridProperties.frozenRowCount,gridProperties.frozenColumnCount",
		}}, &sheetsapi.Request{UpdateSpreadsheetProperties: &sheetsapi.UpdateSpreadsheetPropertiesRequest{
			Properties: &sheetsapi.SpreadsheetProperties{Title: "Book"}, Fields: "title",
		}})
		sp, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.SheetProperties{SheetId: 4, Title: "Renamed", Index: 1, Hidden: true, SheetType: "GRID", GridProperties: gp(1000, 26, 2, 1)}
		if d := cmp.Diff(want, sp.Sheets[1].Properties); d != "" {
			t.Errorf("properties (-want +got):\n%s", d)
		}
		if sp.Properties.Title != "Book" {
			t.Errorf("title = %q", sp.Properties.Title)
		}

		// Another sheet's title is taken; its own is not.
		rename := func(sheet int64, title string) *sheetsapi.Request {
			return &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{Properties: &sheetsapi.SheetProperties{SheetId: sheet, Title: title}, Fields: "title"}}
		}
		_, err = batch(e.sheets, id, rename(4, "Sheet1"))
		wantAPIError(t, err, 400, `Invalid requests[0]: A sheet with the name "Sheet1" already exists. Please enter another name.`)
		mustBatch(t, e.sheets, id, rename(4, "Renamed"))
		// Two sheets may swap names in one batch, through a third.
		mustBatch(t, e.sheets, id, rename(0, "tmp"), rename(4, "Sheet1"), rename(0, "Renamed"))
		sp, err = e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		if a, b := sp.Sheets[0].Properties.Title, sp.Sheets[1].Properties.Title; a != "Renamed" || b != "Sheet1" {
			t.Errorf("titles after the swap: %q, %q", a, b)
		}
	})

	t.Run("updateSheetProperties index moves the sheet", func(t *testing.T) {
		id := newBook(t, e.sheets,
			&sheetsapi.SheetProperties{SheetId: 0, Title: "A"},
			&sheetsapi.SheetProperties{SheetId: 1, Title: "B"},
			&sheetsapi.SheetProperties{SheetId: 2, Title: "C"},
			&sheetsapi.SheetProperties{SheetId: 3, Title: "D"})
		move := func(sheet, index int64, sent bool) *sheetsapi.Request {
			p := &sheetsapi.SheetProperties{SheetId: sheet, Index: index}
			if sent {
				p.ForceSendFields = []string{"Index"}
			}
			return &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{Properties: p, Fields: "index"}}
		}
		order := func() []string {
			sp, err := e.sheets.Spreadsheets.Get(id).Do()
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for i, sh := range sp.Sheets {
				if sh.Properties.Index != int64(i) {
					t.Errorf("sheet %q at position %d has index %d", sh.Properties.Title, i, sh.Properties.Index)
				}
				out = append(out, sh.Properties.Title)
			}
			return out
		}
		// Indexes count before the move, as the discovery document says:
		// to put A after B, the index is 2.
		for _, tc := range []struct {
			name string
			req  *sheetsapi.Request
			want []string
		}{
			{"A after B", move(0, 2, true), []string{"B", "A", "C", "D"}},
			{"D first", move(3, 0, true), []string{"D", "B", "A", "C"}},
			{"its own index", move(1, 1, true), []string{"D", "B", "A", "C"}},
			{"the next index", move(1, 2, true), []string{"D", "B", "A", "C"}},
			{"past the end", move(3, 99, true), []string{"B", "A", "C", "D"}},
			{"no index sent: last", move(1, 0, false), []string{"A", "C", "D", "B"}},
		} {
			mustBatch(t, e.sheets, id, tc.req)
			if d := cmp.Diff(tc.want, order()); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, d)
			}
		}
		_, err := batch(e.sheets, id, move(0, -1, true))
		wantAPIError(t, err, 400, "Invalid requests[0]: Invalid index -1: it must not be negative.")
	})

	t.Run("addSheet and deleteSheet", func(t *testing.T) {
		id := newBook(t, e.sheets)
		resp := mustBatch(t, e.sheets, id, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{SheetId: 8, Title: "Extra"}}})
		if p := resp.Replies[0].AddSheet.Properties; p.SheetId != 8 || p.Title != "Extra" || p.Index != 1 {
			t.Errorf("addSheet reply = %+v", p)
		}
		_, err := batch(e.sheets, id, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{Title: "Extra"}}})
		wantAPIError(t, err, 400, `Invalid requests[0]: A sheet with the name "Extra" already exists. Please enter another name.`)
		mustBatch(t, e.sheets, id, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 8}})
		_, err = batch(e.sheets, id, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 0, ForceSendFields: []string{"SheetId"}}})
		wantAPIError(t, err, 400, "Invalid requests[0]: You can't remove all the sheets in a document.")
		_, err = batch(e.sheets, id, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 77}})
		wantAPIError(t, err, 400, "Invalid requests[0]: No grid with id: 77")
	})

	t.Run("addSheet at an index, deleteSheet renumbers", func(t *testing.T) {
		id := newBook(t, e.sheets)
		add := func(title string, index int64, given bool) *sheetsapi.Request {
			p := &sheetsapi.SheetProperties{Title: title, Index: index}
			if given {
				p.ForceSendFields = []string{"Index"}
			}
			return &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: p}}
		}
		order := func() []string {
			sp, err := e.sheets.Spreadsheets.Get(id).Do()
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for i, sh := range sp.Sheets {
				if sh.Properties.Index != int64(i) {
					t.Errorf("sheet %q at position %d has index %d", sh.Properties.Title, i, sh.Properties.Index)
				}
				out = append(out, sh.Properties.Title)
			}
			return out
		}
		resp := mustBatch(t, e.sheets, id, add("First", 0, true), add("Last", 0, false), add("Mid", 2, true), add("Beyond", 99, true))
		for i, title := range []string{"First", "Last", "Mid", "Beyond"} {
			if p := resp.Replies[i].AddSheet.Properties; p.Title != title || p.SheetId == 0 {
				t.Errorf("reply %d = %+v", i, p)
			}
		}
		if d := cmp.Diff([]string{"First", "Sheet1", "Mid", "Last", "Beyond"}, order()); d != "" {
			t.Errorf("after adding (-want +got):\n%s", d)
		}
		mustBatch(t, e.sheets, id, &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 0, ForceSendFields: []string{"SheetId"}}})
		if d := cmp.Diff([]string{"First", "Mid", "Last", "Beyond"}, order()); d != "" {
			t.Errorf("after deleting (-want +got):\n%s", d)
		}
	})

	t.Run("unknown spreadsheet", func(t *testing.T) {
		_, err := e.sheets.Spreadsheets.Get("nope").Do()
		wantAPIError(t, err, 404, msgNotFound)
		_, err = batch(e.sheets, "nope", setString(0, 0, 0, "x"))
		wantAPIError(t, err, 404, msgNotFound)
	})
}

// ---------------------------------------------------------------------------
// Grid limits and the cell text limit
// ---------------------------------------------------------------------------

func TestGridLimits(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets,
		&sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"},
		&sheetsapi.SheetProperties{SheetId: 7, Title: "Small", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 3}})
	str := func(s string) *sheetsapi.CellData {
		return &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr(s)}}
	}
	const (
		sheet1Limits = "Max rows: 1000, max columns: 26"
		smallLimits  = "Max rows: 10, max columns: 3"
	)

	t.Run("batchUpdate", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			req  *sheetsapi.Request
			want string // "" when it fits
		}{
			{"updateCells below the grid", setString(0, 1000, 0, "x"), "Range (Sheet1!A1001) exceeds grid limits. " + sheet1Limits},
			{"updateCells right of the grid", setCells(0, 0, 25, "userEnteredValue", str("z"), str("aa")), "Range (Sheet1!AA1) exceeds grid limits. " + sheet1Limits},
			{"updateCells on a small sheet", setString(7, 10, 0, "x"), "Range (Small!A11) exceeds grid limits. " + smallLimits},
			{"updateCells last cell", setString(0, 999, 25, "x"), ""},
			{"repeatCell below the grid", &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(0, 990, 1001, 0, 1), Cell: &sheetsapi.CellData{UserEnteredFormat: red}, Fields: "userEnteredFormat"}}, "Range (Sheet1!A1001) exceeds grid limits. " + sheet1Limits},
			{"repeatCell right of a small sheet", &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(7, 0, 1, 2, 4), Cell: &sheetsapi.CellData{UserEnteredFormat: red}, Fields: "userEnteredFormat"}}, "Range (Small!D1) exceeds grid limits. " + smallLimits},
			{"repeatCell whole small sheet", &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: &sheetsapi.GridRange{SheetId: 7}, Cell: &sheetsapi.CellData{UserEnteredFormat: red}, Fields: "userEnteredFormat"}}, ""},
			{"setDataValidation right of the grid", &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 0, 1, 25, 27), Rule: listRule("a")}}, "Range (Sheet1!AA1) exceeds grid limits. " + sheet1Limits},
			{"setDataValidation below a small sheet", &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(7, 5, 11, 0, 1), Rule: listRule("a")}}, "Range (Small!A11) exceeds grid limits. " + smallLimits},
			{"setDataValidation inside", &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(7, 0, 10, 0, 3), Rule: listRule("a")}}, ""},
			{"mergeCells outside", &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(7, 8, 12, 0, 2), MergeType: "MERGE_ALL"}}, "Range (Small!B12) exceeds grid limits. " + smallLimits},
			{"setBasicFilter outside", &sheetsapi.Request{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: &sheetsapi.BasicFilter{Range: grid(7, 0, 11, 0, 3)}}}, "Range (Small!C11) exceeds grid limits. " + smallLimits},
			{"updateDimensionProperties outside", &sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{Range: &sheetsapi.DimensionRange{SheetId: 7, Dimension: "COLUMNS", StartIndex: 0, EndIndex: 4}, Properties: &sheetsapi.DimensionProperties{PixelSize: 10}, Fields: "pixelSize"}}, "Range exceeds grid limits."},
			{"insertDimension past the end", &sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 7, Dimension: "ROWS", StartIndex: 11, EndIndex: 12}}}, "Range exceeds grid limits."},
			{"unknown sheet", setString(99, 0, 0, "x"), "No grid with id"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := batch(e.sheets, id, tc.req)
				if tc.want == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				wantAPIError(t, err, 400, "Invalid requests[0]: "+tc.want)
			})
		}
	})

	t.Run("values", func(t *testing.T) {
		for _, tc := range []struct {
			rng  string
			rows [][]any
			want string
		}{
			{"Sheet1!A1001", [][]any{{"x"}}, "Range (Sheet1!A1001) exceeds grid limits. " + sheet1Limits},
			{"Sheet1!AA1", [][]any{{"x"}}, "Range (Sheet1!AA1) exceeds grid limits. " + sheet1Limits},
			{"Small!A1:D1", [][]any{{"x"}}, "Range (Small!D1) exceeds grid limits. " + smallLimits},
			{"Small!A:A", [][]any{{"x"}}, ""},
			{"Small!C10", [][]any{{"x"}}, ""},
			{"Sheet1!Z1000", [][]any{{"x"}}, ""},
		} {
			t.Run(tc.rng, func(t *testing.T) {
				_, err := writeValues(e.sheets, id, tc.rng, "RAW", tc.rows...)
				_, gerr := e.sheets.Spreadsheets.Values.Get(id, tc.rng).Do()
				if tc.want == "" {
					if err != nil || gerr != nil {
						t.Fatalf("update: %v; get: %v", err, gerr)
					}
					return
				}
				wantAPIError(t, err, 400, tc.want)
				wantAPIError(t, gerr, 400, tc.want)
			})
		}
	})
}

func TestCellLimit(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets)
	writers := []struct {
		name  string
		write func(text string) error
	}{
		{"updateCells", func(s string) error { _, err := batch(e.sheets, id, setString(0, 0, 0, s)); return err }},
		{"repeatCell", func(s string) error {
			_, err := batch(e.sheets, id, &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{
				Range: grid(0, 0, 1, 0, 1), Cell: &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: &s}}, Fields: "userEnteredValue"}})
			return err
		}},
		{"values RAW", func(s string) error { _, err := writeValues(e.sheets, id, "Sheet1!A1", "RAW", []any{s}); return err }},
		{"values USER_ENTERED", func(s string) error {
			_, err := writeValues(e.sheets, id, "Sheet1!A1", "USER_ENTERED", []any{s})
			return err
		}},
		{"values.batchUpdate", func(s string) error {
			_, err := e.sheets.Spreadsheets.Values.BatchUpdate(id, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "RAW", Data: []*sheetsapi.ValueRange{{Range: "Sheet1!A1", Values: [][]any{{s}}}}}).Do()
			return err
		}},
	}
	for _, w := range writers {
		for _, tc := range []struct {
			name string
			text string
			ok   bool
		}{
			{"exactly 50000", strings.Repeat("x", 50000), true},
			{"50000 two-byte characters", strings.Repeat("é", 50000), true},
			{"50001", strings.Repeat("y", 50001), false},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				mustWrite(t, e.sheets, id, "Sheet1!A1", "RAW", []any{"before"})
				err := w.write(tc.text)
				got := readValues(t, e.sheets, id, "Sheet1!A1", "FORMATTED_VALUE")
				if tc.ok {
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != 1 || len(got[0]) != 1 || got[0][0] != tc.text {
						t.Errorf("read back %d rows, not the %d characters written", len(got), len([]rune(tc.text)))
					}
					return
				}
				wantAPIError(t, err, 400, msgTooLong)
				if d := cmp.Diff([][]any{{"before"}}, got); d != "" {
					t.Errorf("a refused write changed the cell (-want +got):\n%s", d)
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// A1 ranges
// ---------------------------------------------------------------------------

func TestA1Ranges(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets,
		&sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"},
		&sheetsapi.SheetProperties{SheetId: 1, Title: "My 'quoted' sheet"},
		&sheetsapi.SheetProperties{SheetId: 2, Title: "Data 2", GridProperties: &sheetsapi.GridProperties{RowCount: 20, ColumnCount: 4}})
	mustWrite(t, e.sheets, id, "Sheet1!F2", "RAW", []any{"f2"})
	mustWrite(t, e.sheets, id, "'My ''quoted'' sheet'!B2", "RAW", []any{"q"})

	t.Run("accepted", func(t *testing.T) {
		for _, tc := range []struct {
			rng, wantRange string // wantRange "" is not checked
			want           [][]any
		}{
			{"Sheet1", "Sheet1!A1:Z1000", [][]any{{}, {"", "", "", "", "", "f2"}}},
			{"'My ''quoted'' sheet'!A1:C3", "'My ''quoted'' sheet'!A1:C3", [][]any{{}, {"", "q"}}},
			{"'My ''quoted'' sheet'", "'My ''quoted'' sheet'!A1:Z1000", [][]any{{}, {"", "q"}}},
			{"Sheet1!B:C", "Sheet1!B1:C1000", nil},
			{"Sheet1!F:F", "Sheet1!F1:F1000", [][]any{{}, {"f2"}}},
			{"Sheet1!2:3", "Sheet1!A2:Z3", [][]any{{"", "", "", "", "", "f2"}}},
			{"Sheet1!f1:f2", "Sheet1!F1:F2", [][]any{{}, {"f2"}}},
			{"Sheet1!E2:F", "Sheet1!E2:F1000", [][]any{{"", "f2"}}},
			{"'Data 2'", "'Data 2'!A1:D20", nil},
			{"'Data 2'!A1:B2", "'Data 2'!A1:B2", nil},
			{"Sheet1!F2", "Sheet1!F2", [][]any{{"f2"}}},
			// Without a sheet name: the first visible sheet.
			{"F2", "Sheet1!F2", [][]any{{"f2"}}},
			{"A1:F2", "Sheet1!A1:F2", [][]any{{}, {"", "", "", "", "", "f2"}}},
			{"f:f", "Sheet1!F1:F1000", [][]any{{}, {"f2"}}},
			{"2:2", "Sheet1!A2:Z2", [][]any{{"", "", "", "", "", "f2"}}},
		} {
			t.Run(tc.rng, func(t *testing.T) {
				vr, err := e.sheets.Spreadsheets.Values.Get(id, tc.rng).ValueRenderOption("FORMATTED_VALUE").Do()
				if err != nil {
					t.Fatal(err)
				}
				if tc.wantRange != "" && vr.Range != tc.wantRange {
					t.Errorf("range = %q, want %q", vr.Range, tc.wantRange)
				}
				if d := cmp.Diff(tc.want, vr.Values, equateEmpty); d != "" {
					t.Errorf("values (-want +got):\n%s", d)
				}
			})
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, rng := range []string{
			"Sheet1!A0",
			"Sheet1!1A",
			"'unterminated",
			"'My sheet'x!A1",
			"Nope!A1",
			"Nope",
			"Sheet1!A1:B0",
			"Sheet1!AAAA1",
			"Sheet1!A1:",
			"Sheet1!A-1",
			"!A1",
			"Sheet1!",
			"'My ''quoted'' sheet'!",
			"F",
			"Nope:Nope",
		} {
			t.Run(rng, func(t *testing.T) {
				_, err := e.sheets.Spreadsheets.Values.Get(id, rng).Do()
				wantAPIError(t, err, 400, "Unable to parse range: "+rng)
			})
		}
	})

	t.Run("without a sheet name: the first visible sheet", func(t *testing.T) {
		id := newBook(t, e.sheets,
			&sheetsapi.SheetProperties{SheetId: 0, Title: "Hidden", Hidden: true},
			&sheetsapi.SheetProperties{SheetId: 1, Title: "Shown"},
			&sheetsapi.SheetProperties{SheetId: 2, Title: "C3"})
		mustWrite(t, e.sheets, id, "Hidden!B2", "RAW", []any{"hidden"})
		mustWrite(t, e.sheets, id, "A1:B2", "RAW", []any{"a", "b"}, []any{"c", "d"})
		mustWrite(t, e.sheets, id, "'C3'!A1", "RAW", []any{"the sheet"})
		for _, tc := range []struct {
			rng, wantRange string
			want           [][]any
		}{
			{"B2", "Shown!B2", [][]any{{"d"}}},
			{"A1:B2", "Shown!A1:B2", [][]any{{"a", "b"}, {"c", "d"}}},
			{"B:B", "Shown!B1:B1000", [][]any{{"b"}, {"d"}}},
			{"Hidden!B2", "Hidden!B2", [][]any{{"hidden"}}},
			// A sheet's name wins over the cell it spells.
			{"C3", "'C3'!A1:Z1000", [][]any{{"the sheet"}}},
		} {
			vr, err := e.sheets.Spreadsheets.Values.Get(id, tc.rng).Do()
			if err != nil {
				t.Fatalf("%s: %v", tc.rng, err)
			}
			if vr.Range != tc.wantRange {
				t.Errorf("%s: range = %q, want %q", tc.rng, vr.Range, tc.wantRange)
			}
			if d := cmp.Diff(tc.want, vr.Values); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.rng, d)
			}
		}
	})

	t.Run("batchGet refuses the whole call", func(t *testing.T) {
		_, err := e.sheets.Spreadsheets.Values.BatchGet(id).Ranges("Sheet1!A1:B2", "Sheet1!A0").Do()
		wantAPIError(t, err, 400, "Unable to parse range: Sheet1!A0")
	})

	t.Run("spreadsheets.get ranges", func(t *testing.T) {
		_, err := e.sheets.Spreadsheets.Get(id).Ranges("'unterminated").Do()
		wantAPIError(t, err, 400, "Unable to parse range: 'unterminated")
		if _, err := e.sheets.Spreadsheets.Get(id).Ranges("Sheet1!A1:B2").Do(); err != nil {
			t.Error(err)
		}
	})
}

// ---------------------------------------------------------------------------
// batchUpdate is all or nothing
// ---------------------------------------------------------------------------

func TestBatchAtomic(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	fresh := func(t *testing.T) string {
		t.Helper()
		sp, err := e.sheets.Spreadsheets.Create(&sheetsapi.Spreadsheet{
			Properties: &sheetsapi.SpreadsheetProperties{Title: "Atomic"},
			Sheets: []*sheetsapi.Sheet{
				{Properties: &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 5}}},
				{Properties: &sheetsapi.SheetProperties{SheetId: 1, Title: "Second"}},
			},
		}).Do()
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, e.sheets, sp.SpreadsheetId, "Sheet1!A1", "RAW", []any{"orig"})
		return sp.SpreadsheetId
	}
	// The failing request's message does not depend on what came before.
	bad := &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 999}}
	const badMsg = "No grid with id: 999"
	const outsideMsg = "Range (Sheet1!A11) exceeds grid limits. Max rows: 10, max columns: 5"

	titles := func(sp *sheetsapi.Spreadsheet) []string {
		var out []string
		for _, sh := range sp.Sheets {
			out = append(out, sh.Properties.Title)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		first []*sheetsapi.Request
		check func(t *testing.T, id string, sp *sheetsapi.Spreadsheet)
	}{
		{"updateCells", []*sheetsapi.Request{setString(0, 0, 0, "changed"), setString(0, 1, 1, "new")}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if d := cmp.Diff([][]any{{"orig"}}, readValues(t, e.sheets, id, "Sheet1", "FORMATTED_VALUE")); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
			// The cell written and rolled back is not listed, not even as {}.
			want := []*sheetsapi.RowData{{Values: []*sheetsapi.CellData{{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("orig")}}}}}
			if d := cmp.Diff(want, sp.Sheets[0].Data[0].RowData); d != "" {
				t.Errorf("row data (-want +got):\n%s", d)
			}
		}},
		{"addSheet", []*sheetsapi.Request{{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{Title: "New", Index: 0, ForceSendFields: []string{"Index"}}}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if d := cmp.Diff([]string{"Sheet1", "Second"}, titles(sp)); d != "" {
				t.Errorf("sheets (-want +got):\n%s", d)
			}
			for i, sh := range sp.Sheets {
				if sh.Properties.Index != int64(i) {
					t.Errorf("sheet %d has index %d", i, sh.Properties.Index)
				}
			}
			// The title is free again.
			mustBatch(t, e.sheets, id, &sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{Title: "New"}}})
		}},
		{"deleteSheet", []*sheetsapi.Request{{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 0, ForceSendFields: []string{"SheetId"}}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if d := cmp.Diff([]string{"Sheet1", "Second"}, titles(sp)); d != "" {
				t.Errorf("sheets (-want +got):\n%s", d)
			}
			if sp.Sheets[1].Properties.Index != 1 {
				t.Errorf("Second has index %d after the rollback", sp.Sheets[1].Properties.Index)
			}
		}},
		{"updateSheetProperties", []*sheetsapi.Request{{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
			Properties: &sheetsapi.SheetProperties{SheetId: 0, Title: "Renamed", Hidden: true, Index: 2, GridProperties: &sheetsapi.GridProperties{FrozenRowCount: 2, FrozenColumnCount: 1}},
			Fields:     "title,hidden,index,gridProperties.frozenRowCount,gridProperties.frozenColumnCount",
		}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if d := cmp.Diff([]string{"Sheet1", "Second"}, titles(sp)); d != "" {
				t.Errorf("sheets (-want +got):\n%s", d)
			}
			want := &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", Index: 0, SheetType: "GRID", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 5}}
			if d := cmp.Diff(want, sp.Sheets[0].Properties); d != "" {
				t.Errorf("properties (-want +got):\n%s", d)
			}
			if i := sp.Sheets[1].Properties.Index; i != 1 {
				t.Errorf("Second has index %d", i)
			}
		}},
		{"repeatCell and setDataValidation", []*sheetsapi.Request{
			{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(0, 0, 2, 0, 2), Cell: &sheetsapi.CellData{UserEnteredFormat: red, Note: "n"}, Fields: "userEnteredFormat,note"}},
			{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 0, 1, 0, 1), Rule: listRule("a")}},
		}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			want := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("orig")}}
			if d := cmp.Diff(want, cellAt(sp, 0, 0, 0)); d != "" {
				t.Errorf("A1 (-want +got):\n%s", d)
			}
			if c := cellAt(sp, 0, 1, 1); c != nil && (c.UserEnteredFormat != nil || c.Note != "") {
				t.Errorf("B2 = %+v", c)
			}
		}},
		{"mergeCells, protected range, filter", []*sheetsapi.Request{
			{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 0, 1, 0, 2), MergeType: "MERGE_ALL"}},
			{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{Range: grid(0, 0, 1, 0, 5), WarningOnly: true}}},
			{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: &sheetsapi.BasicFilter{Range: grid(0, 0, 5, 0, 5)}}},
		}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if s := sp.Sheets[0]; s.Merges != nil || s.ProtectedRanges != nil || s.BasicFilter != nil {
				t.Errorf("merges %v, protected %v, filter %v; want none", s.Merges, s.ProtectedRanges, s.BasicFilter)
			}
		}},
		{"updateDimensionProperties", []*sheetsapi.Request{{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
			Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "COLUMNS", StartIndex: 0, EndIndex: 2}, Properties: &sheetsapi.DimensionProperties{PixelSize: 300, HiddenByUser: true}, Fields: "pixelSize,hiddenByUser",
		}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			for i, m := range sp.Sheets[0].Data[0].ColumnMetadata {
				if m.PixelSize != 100 || m.HiddenByUser {
					t.Errorf("column %d = %+v", i, m)
				}
			}
		}},
		{"insertDimension", []*sheetsapi.Request{{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 0, EndIndex: 3}}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if n := sp.Sheets[0].Properties.GridProperties.RowCount; n != 10 {
				t.Errorf("rowCount = %d, want 10", n)
			}
			if d := cmp.Diff([][]any{{"orig"}}, readValues(t, e.sheets, id, "Sheet1", "FORMATTED_VALUE")); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
		}},
		{"updateSpreadsheetProperties", []*sheetsapi.Request{{UpdateSpreadsheetProperties: &sheetsapi.UpdateSpreadsheetPropertiesRequest{Properties: &sheetsapi.SpreadsheetProperties{Title: "Changed"}, Fields: "title"}}}, func(t *testing.T, id string, sp *sheetsapi.Spreadsheet) {
			if sp.Properties.Title != "Atomic" {
				t.Errorf("title = %q", sp.Properties.Title)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := fresh(t)
			reqs := append(slices.Clone(tc.first), bad)
			_, err := batch(e.sheets, id, reqs...)
			wantAPIError(t, err, 400, "Invalid requests["+strconv.Itoa(len(tc.first))+"]: "+badMsg)
			tc.check(t, id, withGrid(t, e.sheets, id))
		})
	}

	t.Run("everything at once, failing in the middle", func(t *testing.T) {
		id := fresh(t)
		_, err := batch(e.sheets, id,
			setString(0, 0, 0, "changed"),
			&sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{Title: "New"}}},
			&sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 0, EndIndex: 1}}},
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 2, 4, 0, 2), MergeType: "MERGE_ALL"}},
			&sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 0, 1, 0, 1), Rule: &sheetsapi.DataValidationRule{Condition: &sheetsapi.BooleanCondition{Type: "ONE_OF_LIST"}}}},
			setString(0, 1, 1, "never"),
		)
		wantAPIError(t, err, 400, "Invalid requests[4]: Invalid ConditionValue: ONE_OF_LIST requires at least one value")
		sp := withGrid(t, e.sheets, id)
		if d := cmp.Diff([]string{"Sheet1", "Second"}, titles(sp)); d != "" {
			t.Errorf("sheets (-want +got):\n%s", d)
		}
		if sp.Sheets[0].Merges != nil || sp.Sheets[0].Properties.GridProperties.RowCount != 10 {
			t.Errorf("merges %v, rowCount %d", sp.Sheets[0].Merges, sp.Sheets[0].Properties.GridProperties.RowCount)
		}
		if d := cmp.Diff([][]any{{"orig"}}, readValues(t, e.sheets, id, "Sheet1", "FORMATTED_VALUE")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
	})

	t.Run("values.batchUpdate", func(t *testing.T) {
		id := fresh(t)
		_, err := e.sheets.Spreadsheets.Values.BatchUpdate(id, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "RAW", Data: []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:B1", Values: [][]any{{"changed", "new"}}},
			{Range: "Second!A1", Values: [][]any{{"new"}}},
			{Range: "Sheet1!A11", Values: [][]any{{"outside"}}},
		}}).Do()
		wantAPIError(t, err, 400, "Invalid data[2]: "+outsideMsg)
		if d := cmp.Diff([][]any{{"orig"}}, readValues(t, e.sheets, id, "Sheet1", "FORMATTED_VALUE")); d != "" {
			t.Errorf("Sheet1 (-want +got):\n%s", d)
		}
		if got := readValues(t, e.sheets, id, "Second", ""); got != nil {
			t.Errorf("Second = %v, want empty", got)
		}
		sp := withGrid(t, e.sheets, id)
		if rows := sp.Sheets[1].Data[0].RowData; rows != nil {
			t.Errorf("Second's row data after the rollback = %+v, want none", rows)
		}
		if rows := sp.Sheets[0].Data[0].RowData; len(rows) != 1 || len(rows[0].Values) != 1 {
			t.Errorf("Sheet1's row data after the rollback: %d rows, want 1 of 1 cell", len(rows))
		}
	})

	t.Run("addSheet reply is the sheet as added", func(t *testing.T) {
		id := fresh(t)
		resp := mustBatch(t, e.sheets, id,
			&sheetsapi.Request{AddSheet: &sheetsapi.AddSheetRequest{Properties: &sheetsapi.SheetProperties{SheetId: 9, Title: "Added"}}},
			&sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
				Properties: &sheetsapi.SheetProperties{SheetId: 9, Title: "Renamed", GridProperties: &sheetsapi.GridProperties{FrozenRowCount: 3}},
				Fields:     "title,gridProperties.frozenRowCount",
			}})
		want := &sheetsapi.SheetProperties{SheetId: 9, Title: "Added", Index: 2, SheetType: "GRID", GridProperties: &sheetsapi.GridProperties{RowCount: 1000, ColumnCount: 26}}
		if d := cmp.Diff(want, resp.Replies[0].AddSheet.Properties); d != "" {
			t.Errorf("addSheet reply (-want +got):\n%s", d)
		}
	})

	t.Run("values.update spilling", func(t *testing.T) {
		id := fresh(t)
		_, err := writeValues(e.sheets, id, "Sheet1!A1:B1", "RAW", []any{"changed", "b", "c"})
		wantAPIError(t, err, 400, "Requested writing within range [Sheet1!A1:B1], but tried writing to column [C]")
		if d := cmp.Diff([][]any{{"orig"}}, readValues(t, e.sheets, id, "Sheet1", "FORMATTED_VALUE")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
	})
}

// ---------------------------------------------------------------------------
// values: reading
// ---------------------------------------------------------------------------

func TestValuesRead(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"}, &sheetsapi.SheetProperties{SheetId: 1, Title: "My sheet"})
	mustWrite(t, e.sheets, id, "Sheet1!A1:D3", "USER_ENTERED", []any{"a", "3", "true", "2.5"}, []any{}, []any{"", "x"})

	for _, tc := range []struct {
		name          string
		ranges        []string
		render, major string
		want          []*sheetsapi.ValueRange
	}{
		{"unformatted", []string{"Sheet1", "'My sheet'"}, "UNFORMATTED_VALUE", "", []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:Z1000", MajorDimension: "ROWS", Values: [][]any{{"a", 3.0, true, 2.5}, {}, {"", "x"}}},
			{Range: "'My sheet'!A1:Z1000", MajorDimension: "ROWS"},
		}},
		{"formatted", []string{"Sheet1!A1:D3"}, "FORMATTED_VALUE", "ROWS", []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:D3", MajorDimension: "ROWS", Values: [][]any{{"a", "3", "TRUE", "2.5"}, {}, {"", "x"}}},
		}},
		{"columns", []string{"Sheet1!A1:D3"}, "FORMATTED_VALUE", "COLUMNS", []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:D3", MajorDimension: "COLUMNS", Values: [][]any{{"a"}, {"3", "", "x"}, {"TRUE"}, {"2.5"}}},
		}},
		{"columns of a whole sheet", []string{"Sheet1"}, "UNFORMATTED_VALUE", "COLUMNS", []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:Z1000", MajorDimension: "COLUMNS", Values: [][]any{{"a"}, {3.0, "", "x"}, {true}, {2.5}}},
		}},
		{"formula render", []string{"Sheet1!B1:C1"}, "FORMULA", "", []*sheetsapi.ValueRange{
			{Range: "Sheet1!B1:C1", MajorDimension: "ROWS", Values: [][]any{{3.0, true}}},
		}},
		{"empty row only", []string{"Sheet1!A2:D2"}, "FORMATTED_VALUE", "", []*sheetsapi.ValueRange{
			{Range: "Sheet1!A2:D2", MajorDimension: "ROWS"},
		}},
		{"trailing rows and cells trimmed", []string{"Sheet1!B3:E10", "Sheet1!A1:Z2"}, "FORMATTED_VALUE", "", []*sheetsapi.ValueRange{
			{Range: "Sheet1!B3:E10", MajorDimension: "ROWS", Values: [][]any{{"x"}}},
			{Range: "Sheet1!A1:Z2", MajorDimension: "ROWS", Values: [][]any{{"a", "3", "TRUE", "2.5"}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := e.sheets.Spreadsheets.Values.BatchGet(id).Ranges(tc.ranges...).ValueRenderOption(tc.render)
			if tc.major != "" {
				call = call.MajorDimension(tc.major)
			}
			got, err := call.Do()
			if err != nil {
				t.Fatal(err)
			}
			want := &sheetsapi.BatchGetValuesResponse{SpreadsheetId: id, ValueRanges: tc.want}
			if d := cmp.Diff(want, got, ignoreServer, equateEmpty); d != "" {
				t.Errorf("batchGet (-want +got):\n%s", d)
			}
		})
	}

	t.Run("JSON types on the wire", func(t *testing.T) {
		for _, tc := range []struct {
			render string
			want   []any
		}{
			{"UNFORMATTED_VALUE", []any{"a", json.Number("3"), true, json.Number("2.5")}},
			{"FORMATTED_VALUE", []any{"a", "3", "TRUE", "2.5"}},
		} {
			r := do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values:batchGet?ranges=Sheet1!A1:D1&valueRenderOption="+tc.render, "", "")
			if r.status != 200 {
				t.Fatalf("%s: %d %s", tc.render, r.status, r.body)
			}
			dec := json.NewDecoder(strings.NewReader(string(r.body)))
			dec.UseNumber()
			var got struct {
				ValueRanges []struct {
					Values [][]any `json:"values"`
				} `json:"valueRanges"`
			}
			if err := dec.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if len(got.ValueRanges) != 1 || len(got.ValueRanges[0].Values) != 1 {
				t.Fatalf("%s: %s", tc.render, r.body)
			}
			if d := cmp.Diff(tc.want, got.ValueRanges[0].Values[0]); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.render, d)
			}
		}
	})

	t.Run("default render is FORMATTED_VALUE", func(t *testing.T) {
		want := [][]any{{"a", "3", "TRUE", "2.5"}}
		if d := cmp.Diff(want, readValues(t, e.sheets, id, "Sheet1!A1:D1", "")); d != "" {
			t.Errorf("values.get (-want +got):\n%s", d)
		}
		got, err := e.sheets.Spreadsheets.Values.BatchGet(id).Ranges("Sheet1!A1:D1").Do()
		if err != nil {
			t.Fatal(err)
		}
		if len(got.ValueRanges) != 1 {
			t.Fatalf("batchGet = %+v", got)
		}
		if d := cmp.Diff(want, got.ValueRanges[0].Values); d != "" {
			t.Errorf("batchGet (-want +got):\n%s", d)
		}
		// On the wire: strings, not a number and a boolean.
		r := do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1!B1:C1", "", "")
		if !strings.Contains(string(r.body), `["3","TRUE"]`) {
			t.Errorf("values.get without valueRenderOption: %s", r.body)
		}
	})

	t.Run("values.get", func(t *testing.T) {
		got, err := e.sheets.Spreadsheets.Values.Get(id, "Sheet1!A1:B3").ValueRenderOption("UNFORMATTED_VALUE").MajorDimension("COLUMNS").Do()
		if err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.ValueRange{Range: "Sheet1!A1:B3", MajorDimension: "COLUMNS", Values: [][]any{{"a"}, {3.0, "", "x"}}}
		if d := cmp.Diff(want, got, ignoreServer, equateEmpty); d != "" {
			t.Errorf("values.get (-want +got):\n%s", d)
		}
	})

	t.Run("no ranges", func(t *testing.T) {
		got, err := e.sheets.Spreadsheets.Values.BatchGet(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		if got.SpreadsheetId != id || got.ValueRanges != nil {
			t.Errorf("batchGet = %+v", got)
		}
	})

	t.Run("bad options", func(t *testing.T) {
		for _, tc := range []struct{ query, msg string }{
			{"valueRenderOption=PRETTY", `Invalid value at 'value_render_option' (TYPE_ENUM), "PRETTY"`},
			{"majorDimension=DIAGONAL", `Invalid value at 'major_dimension' (TYPE_ENUM), "DIAGONAL"`},
			{"dateTimeRenderOption=ISO", `Invalid value at 'date_time_render_option' (TYPE_ENUM), "ISO"`},
		} {
			wantRawError(t, do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values:batchGet?ranges=Sheet1&"+tc.query, "", ""), 400, "INVALID_ARGUMENT", tc.msg)
			wantRawError(t, do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1?"+tc.query, "", ""), 400, "INVALID_ARGUMENT", tc.msg)
		}
	})
}

// ---------------------------------------------------------------------------
// values: writing
// ---------------------------------------------------------------------------

func TestValuesWrite(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets)

	t.Run("parsing", func(t *testing.T) {
		for i, tc := range []struct {
			name, input                    string
			in                             any
			unformatted, formatted, formul any
			entered                        *sheetsapi.ExtendedValue
		}{
			{"number", "USER_ENTERED", "3", 3.0, "3", 3.0, &sheetsapi.ExtendedValue{NumberValue: ptr(3.0)}},
			{"exponent", "USER_ENTERED", "-2.5e1", -25.0, "-25", -25.0, &sheetsapi.ExtendedValue{NumberValue: ptr(-25.0)}},
			{"true", "USER_ENTERED", "true", true, "TRUE", true, &sheetsapi.ExtendedValue{BoolValue: ptr(true)}},
			{"FALSE", "USER_ENTERED", "FALSE", false, "FALSE", false, &sheetsapi.ExtendedValue{BoolValue: ptr(false)}},
			{"quoted number", "USER_ENTERED", "'3", "3", "3", "3", &sheetsapi.ExtendedValue{StringValue: ptr("3")}},
			{"formula", "USER_ENTERED", "=1+1", "#NAME?", "#NAME?", "=1+1", &sheetsapi.ExtendedValue{FormulaValue: ptr("=1+1")}},
			{"number formula", "USER_ENTERED", "=3", 3.0, "3", "=3", &sheetsapi.ExtendedValue{FormulaValue: ptr("=3")}},
			{"boolean formula", "USER_ENTERED", "=TRUE", true, "TRUE", "=TRUE", &sheetsapi.ExtendedValue{FormulaValue: ptr("=TRUE")}},
			{"string formula", "USER_ENTERED", `="hi"`, "hi", "hi", `="hi"`, &sheetsapi.ExtendedValue{FormulaValue: ptr(`="hi"`)}},
			{"text", "USER_ENTERED", "hello world", "hello world", "hello world", "hello world", &sheetsapi.ExtendedValue{StringValue: ptr("hello world")}},
			{"raw formula", "RAW", "=1+1", "=1+1", "=1+1", "=1+1", &sheetsapi.ExtendedValue{StringValue: ptr("=1+1")}},
			{"raw number", "RAW", "3", "3", "3", "3", &sheetsapi.ExtendedValue{StringValue: ptr("3")}},
			{"raw true", "RAW", "true", "true", "true", "true", &sheetsapi.ExtendedValue{StringValue: ptr("true")}},
			{"JSON number", "RAW", 7, 7.0, "7", 7.0, &sheetsapi.ExtendedValue{NumberValue: ptr(7.0)}},
			{"JSON boolean", "USER_ENTERED", true, true, "TRUE", true, &sheetsapi.ExtendedValue{BoolValue: ptr(true)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rng := "Sheet1!A" + strconv.Itoa(i+1)
				mustWrite(t, e.sheets, id, rng, tc.input, []any{tc.in})
				for render, want := range map[string]any{"UNFORMATTED_VALUE": tc.unformatted, "FORMATTED_VALUE": tc.formatted, "FORMULA": tc.formul} {
					if d := cmp.Diff([][]any{{want}}, readValues(t, e.sheets, id, rng, render)); d != "" {
						t.Errorf("%s (-want +got):\n%s", render, d)
					}
				}
				if d := cmp.Diff(tc.entered, cellAt(withGrid(t, e.sheets, id), 0, i, 0).UserEnteredValue); d != "" {
					t.Errorf("userEnteredValue (-want +got):\n%s", d)
				}
			})
		}
	})

	t.Run("plain-text format keeps text", func(t *testing.T) {
		mustBatch(t, e.sheets, id, &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{
			Range:  grid(0, 0, 2, 1, 2),
			Cell:   &sheetsapi.CellData{UserEnteredFormat: &sheetsapi.CellFormat{NumberFormat: &sheetsapi.NumberFormat{Type: "TEXT"}}},
			Fields: "userEnteredFormat.numberFormat",
		}})
		mustWrite(t, e.sheets, id, "Sheet1!B1:C2", "USER_ENTERED", []any{"3", "3"}, []any{"=1+1", "=1+1"})
		want := [][]any{{"3", 3.0}, {"=1+1", "#NAME?"}}
		if d := cmp.Diff(want, readValues(t, e.sheets, id, "Sheet1!B1:C2", "UNFORMATTED_VALUE")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		if got := cellAt(withGrid(t, e.sheets, id), 0, 0, 1).UserEnteredValue; !cmp.Equal(got, &sheetsapi.ExtendedValue{StringValue: ptr("3")}) {
			t.Errorf("B1 userEnteredValue = %+v, want the string 3", got)
		}
	})

	t.Run("null leaves a cell, empty string clears it", func(t *testing.T) {
		mustWrite(t, e.sheets, id, "Sheet1!D1:F1", "RAW", []any{"x", "y", "z"})
		got, err := writeValues(e.sheets, id, "Sheet1!D1:F1", "USER_ENTERED", []any{nil, "", "w"})
		if err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.UpdateValuesResponse{SpreadsheetId: id, UpdatedRange: "Sheet1!D1:F1", UpdatedRows: 1, UpdatedColumns: 3, UpdatedCells: 2}
		if d := cmp.Diff(want, got, ignoreServer); d != "" {
			t.Errorf("response (-want +got):\n%s", d)
		}
		if d := cmp.Diff([][]any{{"x", "", "w"}}, readValues(t, e.sheets, id, "Sheet1!D1:F1", "")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		if c := cellAt(withGrid(t, e.sheets, id), 0, 0, 4); c != nil && c.UserEnteredValue != nil {
			t.Errorf("E1 = %+v, want cleared", c.UserEnteredValue)
		}
	})

	t.Run("response", func(t *testing.T) {
		got, err := writeValues(e.sheets, id, "Sheet1!H2:I3", "RAW", []any{"a", "b"}, []any{"c", "d"})
		if err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.UpdateValuesResponse{SpreadsheetId: id, UpdatedRange: "Sheet1!H2:I3", UpdatedRows: 2, UpdatedColumns: 2, UpdatedCells: 4}
		if d := cmp.Diff(want, got, ignoreServer); d != "" {
			t.Errorf("response (-want +got):\n%s", d)
		}
	})

	t.Run("one cell is an anchor", func(t *testing.T) {
		got, err := writeValues(e.sheets, id, "Sheet1!N1", "RAW", []any{"a", "b"}, []any{"c", "d"})
		if err != nil {
			t.Fatal(err)
		}
		want := &sheetsapi.UpdateValuesResponse{SpreadsheetId: id, UpdatedRange: "Sheet1!N1:O2", UpdatedRows: 2, UpdatedColumns: 2, UpdatedCells: 4}
		if d := cmp.Diff(want, got, ignoreServer); d != "" {
			t.Errorf("response (-want +got):\n%s", d)
		}
		if d := cmp.Diff([][]any{{"a", "b"}, {"c", "d"}}, readValues(t, e.sheets, id, "Sheet1!N1:O2", "")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		// In a batch too, and without a sheet name.
		bu, err := e.sheets.Spreadsheets.Values.BatchUpdate(id, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "RAW", Data: []*sheetsapi.ValueRange{
			{Range: "N4", Values: [][]any{{"e", "f", "g"}}},
		}}).Do()
		if err != nil {
			t.Fatal(err)
		}
		if r := bu.Responses[0].UpdatedRange; r != "Sheet1!N4:P4" {
			t.Errorf("updatedRange = %q", r)
		}
		// Still not past the grid.
		_, err = writeValues(e.sheets, id, "Sheet1!Z1", "RAW", []any{"y", "z"})
		wantAPIError(t, err, 400, "Range (Sheet1!AA1) exceeds grid limits. Max rows: 1000, max columns: 26")
		if got := readValues(t, e.sheets, id, "Sheet1!Z1", ""); got != nil {
			t.Errorf("a refused write left %v", got)
		}
	})

	t.Run("one-cell ranges are answered as one cell", func(t *testing.T) {
		got, err := writeValues(e.sheets, id, "Sheet1!Q7", "RAW", []any{"q"})
		if err != nil {
			t.Fatal(err)
		}
		if got.UpdatedRange != "Sheet1!Q7" {
			t.Errorf("updatedRange = %q, want Sheet1!Q7", got.UpdatedRange)
		}
		for _, rng := range []string{"Sheet1!Q7", "Sheet1!Q7:Q7", "Q7"} {
			vr, err := e.sheets.Spreadsheets.Values.Get(id, rng).Do()
			if err != nil {
				t.Fatal(err)
			}
			if vr.Range != "Sheet1!Q7" {
				t.Errorf("values.get %s: range = %q, want Sheet1!Q7", rng, vr.Range)
			}
		}
	})

	t.Run("major dimension COLUMNS", func(t *testing.T) {
		_, err := e.sheets.Spreadsheets.Values.Update(id, "Sheet1!K1:L2", &sheetsapi.ValueRange{MajorDimension: "COLUMNS", Values: [][]any{{"a", "b"}, {"c"}}}).ValueInputOption("RAW").Do()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([][]any{{"a", "c"}, {"b"}}, readValues(t, e.sheets, id, "Sheet1!K1:L2", "")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
	})

	t.Run("batchUpdate", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1"}, &sheetsapi.SheetProperties{SheetId: 1, Title: "Other"})
		got, err := e.sheets.Spreadsheets.Values.BatchUpdate(id, &sheetsapi.BatchUpdateValuesRequest{ValueInputOption: "USER_ENTERED", Data: []*sheetsapi.ValueRange{
			{Range: "Sheet1!A1:B2", Values: [][]any{{"1", "x"}, {"true"}}},
			{Range: "Other!C3:C4", MajorDimension: "COLUMNS", Values: [][]any{{"p", "q"}}},
			{Range: "Sheet1!D5", Values: [][]any{{"d"}}},
		}}).Do()
		if err != nil {
			t.Fatal(err)
		}
		// Three ranges on two sheets.
		want := &sheetsapi.BatchUpdateValuesResponse{
			SpreadsheetId: id,
			Responses: []*sheetsapi.UpdateValuesResponse{
				{SpreadsheetId: id, UpdatedRange: "Sheet1!A1:B2", UpdatedRows: 2, UpdatedColumns: 2, UpdatedCells: 3},
				{SpreadsheetId: id, UpdatedRange: "Other!C3:C4", UpdatedRows: 2, UpdatedColumns: 1, UpdatedCells: 2},
				{SpreadsheetId: id, UpdatedRange: "Sheet1!D5", UpdatedRows: 1, UpdatedColumns: 1, UpdatedCells: 1},
			},
			TotalUpdatedCells: 6, TotalUpdatedRows: 5, TotalUpdatedColumns: 4, TotalUpdatedSheets: 2,
		}
		if d := cmp.Diff(want, got, ignoreServer); d != "" {
			t.Errorf("response (-want +got):\n%s", d)
		}
		if d := cmp.Diff([][]any{{1.0, "x"}, {true}, {}, {}, {"", "", "", "d"}}, readValues(t, e.sheets, id, "Sheet1", "UNFORMATTED_VALUE"), equateEmpty); d != "" {
			t.Errorf("Sheet1 (-want +got):\n%s", d)
		}
		if d := cmp.Diff([][]any{{"p"}, {"q"}}, readValues(t, e.sheets, id, "Other!C3:C4", "")); d != "" {
			t.Errorf("Other (-want +got):\n%s", d)
		}
	})

	t.Run("refused", func(t *testing.T) {
		put := func(rng, query, body string) reply {
			return do(t, "PUT", e.url+"/v4/spreadsheets/"+id+"/values/"+url.PathEscape(rng)+query, body, "")
		}
		for _, tc := range []struct {
			name string
			r    reply
			msg  string
		}{
			{"no valueInputOption", put("Sheet1!A1", "", `{"values":[["x"]]}`), "'valueInputOption' is required but not specified"},
			{"bad valueInputOption", put("Sheet1!A1", "?valueInputOption=PARSED", `{"values":[["x"]]}`), `Invalid value at 'value_input_option' (TYPE_ENUM), "PARSED"`},
			{"too many rows", put("Sheet1!A1:B2", "?valueInputOption=RAW", `{"values":[["a"],["b"],["c"]]}`), "Requested writing within range [Sheet1!A1:B2], but tried writing to row [3]"},
			{"too many columns", put("Sheet1!A1:B2", "?valueInputOption=RAW", `{"values":[["a","b","c"]]}`), "Requested writing within range [Sheet1!A1:B2], but tried writing to column [C]"},
			{"body range differs", put("Sheet1!A1:B2", "?valueInputOption=RAW", `{"range":"Sheet1!C1","values":[["a"]]}`), "Requested writing within range [Sheet1!A1:B2], but tried writing to [Sheet1!C1]"},
			{"object value", put("Sheet1!A1", "?valueInputOption=RAW", `{"values":[[{"a":1}]]}`), "Invalid values"},
			{"batchUpdate without valueInputOption", do(t, "POST", e.url+"/v4/spreadsheets/"+id+"/values:batchUpdate", `{"data":[{"range":"Sheet1!A1","values":[["x"]]}]}`, ""), "Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED"},
		} {
			t.Run(tc.name, func(t *testing.T) { wantRawError(t, tc.r, 400, "INVALID_ARGUMENT", tc.msg) })
		}
		// The typed client without ValueInputOption.
		_, err := e.sheets.Spreadsheets.Values.Update(id, "Sheet1!A1", &sheetsapi.ValueRange{Values: [][]any{{"x"}}}).Do()
		wantAPIError(t, err, 400, "'valueInputOption' is required but not specified")
	})
}

// ---------------------------------------------------------------------------
// insertDimension
// ---------------------------------------------------------------------------

func TestInsertDimension(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	setup := func(t *testing.T) string {
		t.Helper()
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 8}})
		mustWrite(t, e.sheets, id, "Sheet1!A1:A4", "RAW", []any{"r1"}, []any{"r2"}, []any{"r3"}, []any{"r4"})
		mustBatch(t, e.sheets, id,
			&sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(0, 1, 2, 0, 3), Cell: &sheetsapi.CellData{UserEnteredFormat: red}, Fields: "userEnteredFormat"}},
			&sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 1, 2, 1, 2), Rule: listRule("yes", "no")}},
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 0, 2, 3, 4), MergeType: "MERGE_ALL"}}, // above
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 1, 3, 4, 5), MergeType: "MERGE_ALL"}}, // across
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 2, 4, 5, 6), MergeType: "MERGE_ALL"}}, // starting there
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 5, 7, 6, 7), MergeType: "MERGE_ALL"}}, // below
			&sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{
				Range: grid(0, 1, 3, 0, 2), UnprotectedRanges: []*sheetsapi.GridRange{grid(0, 2, 3, 1, 2), grid(0, 1, 2, 0, 1)},
			}}},
			&sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{Range: &sheetsapi.GridRange{SheetId: 0}, WarningOnly: true}}},
			&sheetsapi.Request{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: &sheetsapi.BasicFilter{Range: grid(0, 0, 5, 0, 3)}}},
			rowSize(1, 30, false),
			rowSize(2, 50, true),
		)
		return id
	}
	heights := func(sp *sheetsapi.Spreadsheet) []int64 {
		var out []int64
		for _, m := range sp.Sheets[0].Data[0].RowMetadata {
			out = append(out, m.PixelSize)
		}
		return out
	}
	insert := func(start, end int64, inherit bool) *sheetsapi.Request {
		return &sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: start, EndIndex: end}, InheritFromBefore: inherit}}
	}

	t.Run("inheritFromBefore", func(t *testing.T) {
		id := setup(t)
		mustBatch(t, e.sheets, id, insert(2, 4, true))
		sp := withGrid(t, e.sheets, id)
		if n := sp.Sheets[0].Properties.GridProperties.RowCount; n != 12 {
			t.Errorf("rowCount = %d, want 12", n)
		}
		if d := cmp.Diff([][]any{{"r1"}, {"r2"}, {}, {}, {"r3"}, {"r4"}}, readValues(t, e.sheets, id, "Sheet1!A1:A12", ""), equateEmpty); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		rule := listRule("yes", "no")
		inherited := []*sheetsapi.CellData{{UserEnteredFormat: red}, {UserEnteredFormat: red, DataValidation: rule}, {UserEnteredFormat: red}}
		above := []*sheetsapi.CellData{{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("r2")}, UserEnteredFormat: red}, {UserEnteredFormat: red, DataValidation: rule}, {UserEnteredFormat: red}}
		rows := sp.Sheets[0].Data[0].RowData
		for r, want := range map[int][]*sheetsapi.CellData{1: above, 2: inherited, 3: inherited} {
			if d := cmp.Diff(want, rows[r].Values); d != "" {
				t.Errorf("row %d (-want +got):\n%s", r+1, d)
			}
		}
		wantMerges := []*sheetsapi.GridRange{grid(0, 0, 2, 3, 4), grid(0, 1, 5, 4, 5), grid(0, 4, 6, 5, 6), grid(0, 7, 9, 6, 7)}
		if d := cmp.Diff(wantMerges, sp.Sheets[0].Merges); d != "" {
			t.Errorf("merges (-want +got):\n%s", d)
		}
		// Protected ranges and the filter move as merges do; a range over
		// the whole sheet stays so.
		wantProtected := []*sheetsapi.ProtectedRange{
			{ProtectedRangeId: 1, Range: grid(0, 1, 5, 0, 2), UnprotectedRanges: []*sheetsapi.GridRange{grid(0, 4, 5, 1, 2), grid(0, 1, 2, 0, 1)}},
			{ProtectedRangeId: 2, Range: &sheetsapi.GridRange{SheetId: 0}, WarningOnly: true},
		}
		if d := cmp.Diff(wantProtected, sp.Sheets[0].ProtectedRanges); d != "" {
			t.Errorf("protected ranges (-want +got):\n%s", d)
		}
		if d := cmp.Diff(&sheetsapi.BasicFilter{Range: grid(0, 0, 7, 0, 3)}, sp.Sheets[0].BasicFilter); d != "" {
			t.Errorf("filter (-want +got):\n%s", d)
		}
		// The new rows are as high as the row above; the rows below move.
		if d := cmp.Diff([]int64{21, 30, 30, 30, 50, 21, 21, 21, 21, 21, 21, 21}, heights(sp)); d != "" {
			t.Errorf("row heights (-want +got):\n%s", d)
		}
		if m := sp.Sheets[0].Data[0].RowMetadata; len(m) != 12 || !m[4].HiddenByUser {
			t.Error("the hidden row did not move down")
		}
		// The new rows can be written, and what moved down stays readable.
		mustWrite(t, e.sheets, id, "Sheet1!A3", "RAW", []any{"new"})
		if d := cmp.Diff([][]any{{"new"}, {}, {"r3"}}, readValues(t, e.sheets, id, "Sheet1!A3:A5", ""), equateEmpty); d != "" {
			t.Errorf("values after writing (-want +got):\n%s", d)
		}
	})

	t.Run("without inheriting", func(t *testing.T) {
		id := setup(t)
		mustBatch(t, e.sheets, id, insert(0, 1, false))
		sp := withGrid(t, e.sheets, id)
		if n := sp.Sheets[0].Properties.GridProperties.RowCount; n != 11 {
			t.Errorf("rowCount = %d, want 11", n)
		}
		if d := cmp.Diff([][]any{{}, {"r1"}, {"r2"}, {"r3"}, {"r4"}}, readValues(t, e.sheets, id, "Sheet1!A:A", ""), equateEmpty); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		if c := cellAt(sp, 0, 2, 1); c == nil || !cmp.Equal(c.DataValidation, listRule("yes", "no")) {
			t.Errorf("validation did not move down with its cell: %+v", c)
		}
	})

	t.Run("inheritFromBefore false takes the row after", func(t *testing.T) {
		id := setup(t)
		mustBatch(t, e.sheets, id, insert(1, 2, false))
		sp := withGrid(t, e.sheets, id)
		inherited := []*sheetsapi.CellData{{UserEnteredFormat: red}, {UserEnteredFormat: red, DataValidation: listRule("yes", "no")}, {UserEnteredFormat: red}}
		if d := cmp.Diff(inherited, sp.Sheets[0].Data[0].RowData[1].Values); d != "" {
			t.Errorf("new row (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]int64{21, 30, 30, 50, 21, 21, 21, 21, 21, 21, 21}, heights(sp)); d != "" {
			t.Errorf("row heights (-want +got):\n%s", d)
		}
	})

	t.Run("rolled back", func(t *testing.T) {
		id := setup(t)
		before := withGrid(t, e.sheets, id)
		_, err := batch(e.sheets, id, insert(0, 2, false), &sheetsapi.Request{DeleteSheet: &sheetsapi.DeleteSheetRequest{SheetId: 99}})
		wantAPIError(t, err, 400, "Invalid requests[1]: No grid with id: 99")
		if d := cmp.Diff(before, withGrid(t, e.sheets, id), ignoreServer); d != "" {
			t.Errorf("after the rollback (-before +after):\n%s", d)
		}
	})

	t.Run("at the end", func(t *testing.T) {
		id := setup(t)
		mustBatch(t, e.sheets, id, insert(10, 15, true))
		sp := withGrid(t, e.sheets, id)
		if n := sp.Sheets[0].Properties.GridProperties.RowCount; n != 15 {
			t.Errorf("rowCount = %d, want 15", n)
		}
		mustWrite(t, e.sheets, id, "Sheet1!A15", "RAW", []any{"last"})
	})

	t.Run("refused", func(t *testing.T) {
		id := setup(t)
		_, err := batch(e.sheets, id, insert(11, 12, false))
		wantAPIError(t, err, 400, "Invalid requests[0]: Range exceeds grid limits.")
		_, err = batch(e.sheets, id, insert(3, 3, false))
		wantAPIError(t, err, 400, "Invalid requests[0]: Invalid range: the range must not be empty")
		_, err = batch(e.sheets, id, &sheetsapi.Request{InsertDimension: &sheetsapi.InsertDimensionRequest{Range: &sheetsapi.DimensionRange{SheetId: 9, Dimension: "ROWS", StartIndex: 0, EndIndex: 1}}})
		wantAPIError(t, err, 400, "Invalid requests[0]: No grid with id: 9")
		// Nothing to inherit from: Google's words.
		_, err = batch(e.sheets, id, insert(0, 1, true))
		wantAPIError(t, err, 400, "Invalid requests[0]: range.startIndex must not be 0 if inheritFromBefore is true")
		_, err = batch(e.sheets, id, insert(10, 11, false))
		wantAPIError(t, err, 400, "Invalid requests[0]: range.startIndex must be less than the grid size (10) if inheritFromBefore is false.")
	})
}

// ---------------------------------------------------------------------------
// Faults and the call log
// ---------------------------------------------------------------------------

func TestFaults(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets)
	bu := e.url + "/v4/spreadsheets/" + id + ":batchUpdate"
	body := `{"requests":[{"updateSpreadsheetProperties":{"properties":{"title":"t"},"fields":"title"}}]}`

	t.Run("429 twice then success", func(t *testing.T) {
		e.fake.Inject(sheetsfake.Fault{Match: "batchUpdate", Status: 429, RetryAfter: "7", Times: 2})

		// A call that does not match goes through and takes no fault.
		if _, err := e.sheets.Spreadsheets.Get(id).Do(); err != nil {
			t.Fatal(err)
		}

		_, err := batch(e.sheets, id, setString(0, 0, 0, "x"))
		var gerr *googleapi.Error
		if !errors.As(err, &gerr) || gerr.Code != 429 || gerr.Message != "injected fault (429)" || gerr.Header.Get("Retry-After") != "7" {
			t.Fatalf("first call: err = %v (%+v)", err, gerr)
		}

		r := do(t, "POST", bu, body, "")
		if r.status != 429 || r.header.Get("Retry-After") != "7" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("second call: %d %v %s", r.status, r.header, r.body)
		}
		var got map[string]any
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"error": map[string]any{
			"code": 429.0, "message": "injected fault (429)", "status": "RESOURCE_EXHAUSTED",
			"errors": []any{map[string]any{"domain": "global", "reason": "rateLimitExceeded", "message": "injected fault (429)"}},
		}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("error body (-want +got):\n%s", d)
		}

		if r := do(t, "POST", bu, body, ""); r.status != 200 || r.header.Get("Retry-After") != "" {
			t.Errorf("third call: %d %v %s", r.status, r.header, r.body)
		}
		// The write refused by the fault did not happen.
		if got := readValues(t, e.sheets, id, "Sheet1!A1", ""); got != nil {
			t.Errorf("A1 = %v", got)
		}
	})

	t.Run("status names", func(t *testing.T) {
		for _, tc := range []struct {
			code int
			name string
		}{{400, "INVALID_ARGUMENT"}, {401, "UNAUTHENTICATED"}, {403, "PERMISSION_DENIED"}, {404, "NOT_FOUND"}, {429, "RESOURCE_EXHAUSTED"}, {500, "INTERNAL"}, {503, "UNAVAILABLE"}} {
			e.fake.Inject(sheetsfake.Fault{Match: "GET /v4/spreadsheets/" + id, Status: tc.code})
			wantRawError(t, do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", ""), tc.code, tc.name, "injected fault ("+strconv.Itoa(tc.code)+")")
		}
		if r := do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", ""); r.status != 200 {
			t.Errorf("after the faults: %d", r.status)
		}
	})

	t.Run("empty match hits the next API call only", func(t *testing.T) {
		e.fake.Inject(sheetsfake.Fault{Status: 500})
		// The control API and the OAuth endpoints are not API calls.
		if r := do(t, "GET", e.url+"/_fake/calls", "", ""); r.status != 200 {
			t.Errorf("/_fake/calls: %d", r.status)
		}
		if status, _ := postToken(t, e.url+"/token", url.Values{"grant_type": {"password"}}); status != 400 {
			t.Errorf("/token: %d", status)
		}
		_, err := e.drive.Files.Get(id).Do()
		wantAPIError(t, err, 500, "injected fault (500)")
		if _, err := e.drive.Files.Get(id).Do(); err != nil {
			t.Error(err)
		}
	})

	t.Run("delay", func(t *testing.T) {
		const delay = 150 * time.Millisecond
		e.fake.Inject(sheetsfake.Fault{Match: "/values/", Delay: delay})
		begin := time.Now()
		got := readValues(t, e.sheets, id, "Sheet1", "")
		if el := time.Since(begin); el < delay {
			t.Errorf("delayed call took %v, want at least %v", el, delay)
		}
		if got != nil {
			t.Errorf("values = %v", got)
		}

		e.fake.Inject(sheetsfake.Fault{Match: "/values/", Delay: 50 * time.Millisecond, Status: 503, RetryAfter: "1"})
		begin = time.Now()
		_, err := e.sheets.Spreadsheets.Values.Get(id, "Sheet1").Do()
		wantAPIError(t, err, 503, "injected fault (503)")
		if el := time.Since(begin); el < 50*time.Millisecond {
			t.Errorf("delayed failure took %v", el)
		}
	})

	t.Run("calls", func(t *testing.T) {
		e.fake.ResetCalls()
		if got := e.fake.Calls(); len(got) != 0 {
			t.Fatalf("after ResetCalls: %v", got)
		}
		putBody := `{"values":[["x"]]}`
		e.fake.Inject(sheetsfake.Fault{Match: "PATCH", Status: 429})
		do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", "")
		do(t, "PUT", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1!A1?valueInputOption=RAW", putBody, "")
		do(t, "GET", e.url+"/drive/v3/files/nope", "", "")
		do(t, "POST", bu, `{"requests":[]}`, "")
		do(t, "PATCH", e.url+"/drive/v3/files/"+id, `{}`, "")
		do(t, "GET", e.url+"/_fake/calls", "", "")
		postToken(t, e.url+"/token", url.Values{"grant_type": {"password"}})
		want := []sheetsfake.Call{
			{Method: "GET", Path: "/v4/spreadsheets/" + id, Bytes: 0, Status: 200},
			{Method: "PUT", Path: "/v4/spreadsheets/" + id + "/values/Sheet1!A1", Bytes: len(putBody), Status: 200},
			{Method: "GET", Path: "/drive/v3/files/nope", Bytes: 0, Status: 404},
			{Method: "POST", Path: "/v4/spreadsheets/" + id + ":batchUpdate", Bytes: len(`{"requests":[]}`), Status: 400},
			{Method: "PATCH", Path: "/drive/v3/files/" + id, Bytes: 2, Status: 429},
		}
		if d := cmp.Diff(want, e.fake.Calls()); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
		// Calls returns a copy.
		c := e.fake.Calls()
		c[0].Status = 999
		if e.fake.Calls()[0].Status != 200 {
			t.Error("Calls() shares its slice")
		}
	})

	t.Run("control endpoints", func(t *testing.T) {
		e.fake.ResetCalls()
		r := do(t, "POST", e.url+"/_fake/faults", `[{"match":"GET /v4/spreadsheets/`+id+`","status":503,"retry_after":"2","times":2},{"match":"/values/","delay":100000000}]`, "")
		if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"faults":2}` {
			t.Fatalf("POST /_fake/faults: %d %s", r.status, r.body)
		}
		for i := 0; i < 2; i++ {
			r := do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", "")
			wantRawError(t, r, 503, "UNAVAILABLE", "injected fault (503)")
			if r.header.Get("Retry-After") != "2" {
				t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
			}
		}
		if r := do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", ""); r.status != 200 {
			t.Errorf("third get: %d", r.status)
		}
		begin := time.Now()
		if r := do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1", "", ""); r.status != 200 {
			t.Errorf("delayed get: %d", r.status)
		}
		if el := time.Since(begin); el < 100*time.Millisecond {
			t.Errorf("delayed get took %v", el)
		}

		r = do(t, "GET", e.url+"/_fake/calls", "", "")
		var calls []sheetsfake.Call
		if err := json.Unmarshal(r.body, &calls); err != nil {
			t.Fatalf("/_fake/calls: %v: %s", err, r.body)
		}
		want := []sheetsfake.Call{
			{Method: "GET", Path: "/v4/spreadsheets/" + id, Status: 503},
			{Method: "GET", Path: "/v4/spreadsheets/" + id, Status: 503},
			{Method: "GET", Path: "/v4/spreadsheets/" + id, Status: 200},
			{Method: "GET", Path: "/v4/spreadsheets/" + id + "/values/Sheet1", Status: 200},
		}
		if d := cmp.Diff(want, calls); d != "" {
			t.Errorf("/_fake/calls (-want +got):\n%s", d)
		}

		r = do(t, "GET", e.url+"/_fake/faults", "", "")
		if r.status != 405 || !strings.Contains(string(r.body), "POST a list of faults") {
			t.Errorf("GET /_fake/faults: %d %s", r.status, r.body)
		}
		wantRawError(t, do(t, "POST", e.url+"/_fake/faults", `{"match":1}`, ""), 400, "INVALID_ARGUMENT", "faults: ")
		wantRawError(t, do(t, "GET", e.url+"/_fake/nope", "", ""), 404, "NOT_FOUND", "no such control /_fake/nope")
	})
}

// ---------------------------------------------------------------------------
// OAuth: installed app
// ---------------------------------------------------------------------------

func TestAuth(t *testing.T) {
	e := start(t, sheetsfake.Options{RequireAuth: true})
	c := clientSecret(t, e.fake)
	getBook := func(token string) reply { return do(t, "POST", e.url+"/v4/spreadsheets", `{}`, token) }

	t.Run("client secret file", func(t *testing.T) {
		want := installed{
			ClientID: "fake-client.apps.googleusercontent.com", ClientSecret: "fake-secret", ProjectID: "annosheet-fake",
			AuthURI: e.url + "/auth", TokenURI: e.url + "/token", RedirectURIs: []string{"http://localhost"},
		}
		if d := cmp.Diff(want, c); d != "" {
			t.Errorf("client secret (-want +got):\n%s", d)
		}
		other := start(t, sheetsfake.Options{ClientID: "mine.apps.googleusercontent.com", ClientSecret: "s3cret"})
		if oc := clientSecret(t, other.fake); oc.ClientID != "mine.apps.googleusercontent.com" || oc.ClientSecret != "s3cret" {
			t.Errorf("custom client = %+v", oc)
		}
	})

	t.Run("no token", func(t *testing.T) {
		wantRawError(t, getBook(""), 401, "UNAUTHENTICATED", msgNoCredential)
		_, err := e.sheets.Spreadsheets.Get("x").Do()
		wantAPIError(t, err, 401, msgNoCredential)
	})

	t.Run("unknown token", func(t *testing.T) {
		wantRawError(t, getBook("ya29.made-up"), 401, "UNAUTHENTICATED", msgBadToken)
	})

	t.Run("code flow", func(t *testing.T) {
		verifier := "v-" + strings.Repeat("a", 50)
		status, loc, body := authorize(t, c, authParams(c, scopeDriveFile, verifier))
		if status != http.StatusFound || loc == nil {
			t.Fatalf("auth = %d %s", status, body)
		}
		if loc.Scheme != "http" || loc.Host != "127.0.0.1:53682" || loc.Path != "/cb" {
			t.Errorf("redirect = %s, want %s", loc, redirectURI)
		}
		q := loc.Query()
		if q.Get("state") != "st-42" || q.Get("scope") != scopeDriveFile || !strings.HasPrefix(q.Get("code"), "4/") {
			t.Errorf("redirect query = %v", q)
		}
		status, out := postToken(t, c.TokenURI, exchangeForm(c, q.Get("code"), verifier))
		if status != 200 {
			t.Fatalf("token = %d %v", status, out)
		}
		access, _ := out["access_token"].(string)
		refresh, _ := out["refresh_token"].(string)
		if !strings.HasPrefix(access, "ya29.") || refresh == "" || out["token_type"] != "Bearer" || out["expires_in"] != 3600.0 || out["scope"] != scopeDriveFile {
			t.Errorf("token answer = %v", out)
		}
		if r := getBook(access); r.status != 200 {
			t.Errorf("create with the token: %d %s", r.status, r.body)
		}
		// The typed clients with the token.
		sp, err := sheetsClient(t, e.url, access).Spreadsheets.Create(&sheetsapi.Spreadsheet{}).Do()
		if err != nil {
			t.Fatal(err)
		}
		f, err := driveClient(t, e.url, access).Files.Get(sp.SpreadsheetId).Do()
		if err != nil || f.MimeType != mimeSheet {
			t.Errorf("files.get = %+v, %v", f, err)
		}
	})

	t.Run("client credentials in a Basic header", func(t *testing.T) {
		verifier := strings.Repeat("b", 43)
		form := exchangeForm(c, codeFor(t, c, scopeDriveFile, verifier), verifier)
		form.Del("client_id")
		form.Del("client_secret")
		req, _ := http.NewRequest("POST", c.TokenURI, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(c.ClientID, c.ClientSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("token with Basic auth: %d", resp.StatusCode)
		}
	})

	t.Run("token refusals", func(t *testing.T) {
		verifier := strings.Repeat("c", 43)
		for _, tc := range []struct {
			name       string
			edit       func(url.Values)
			status     int
			kind, desc string
		}{
			{"wrong verifier", func(v url.Values) { v.Set("code_verifier", strings.Repeat("d", 43)) }, 400, "invalid_grant", "Invalid code verifier."},
			{"no verifier", func(v url.Values) { v.Del("code_verifier") }, 400, "invalid_grant", "Invalid code verifier."},
			{"other redirect", func(v url.Values) { v.Set("redirect_uri", "http://127.0.0.1:1/cb") }, 400, "redirect_uri_mismatch", "Bad Request"},
			{"wrong secret", func(v url.Values) { v.Set("client_secret", "nope") }, 401, "invalid_client", "Unauthorized"},
			{"unknown code", func(v url.Values) { v.Set("code", "4/made-up") }, 400, "invalid_grant", "Malformed auth code."},
			{"unknown grant type", func(v url.Values) { v.Set("grant_type", "password") }, 400, "unsupported_grant_type", "Invalid grant_type: password"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				form := exchangeForm(c, codeFor(t, c, scopeDriveFile, verifier), verifier)
				tc.edit(form)
				status, out := postToken(t, c.TokenURI, form)
				wantOAuthError(t, status, out, tc.status, tc.kind, tc.desc)
			})
		}
		resp, err := http.Get(c.TokenURI)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 {
			t.Errorf("GET /token: %d", resp.StatusCode)
		}
	})

	t.Run("code is single-use", func(t *testing.T) {
		verifier := strings.Repeat("e", 43)
		code := codeFor(t, c, scopeDriveFile, verifier)
		if status, out := postToken(t, c.TokenURI, exchangeForm(c, code, verifier)); status != 200 {
			t.Fatalf("first exchange: %d %v", status, out)
		}
		status, out := postToken(t, c.TokenURI, exchangeForm(c, code, verifier))
		wantOAuthError(t, status, out, 400, "invalid_grant", "Malformed auth code.")

		// A failed exchange uses the code up too.
		code = codeFor(t, c, scopeDriveFile, verifier)
		bad := exchangeForm(c, code, strings.Repeat("f", 43))
		status, out = postToken(t, c.TokenURI, bad)
		wantOAuthError(t, status, out, 400, "invalid_grant", "Invalid code verifier.")
		status, out = postToken(t, c.TokenURI, exchangeForm(c, code, verifier))
		wantOAuthError(t, status, out, 400, "invalid_grant", "Malformed auth code.")
	})

	t.Run("consent screen", func(t *testing.T) {
		verifier := strings.Repeat("g", 43)
		for _, tc := range []struct {
			name string
			edit func(url.Values)
			kind string // "" when it redirects
		}{
			{"localhost", func(v url.Values) { v.Set("redirect_uri", "http://localhost:8080/cb") }, ""},
			{"IPv6 loopback", func(v url.Values) { v.Set("redirect_uri", "http://[::1]:9999/cb") }, ""},
			{"no port", func(v url.Values) { v.Set("redirect_uri", "http://127.0.0.1/cb") }, ""},
			{"https elsewhere", func(v url.Values) { v.Set("redirect_uri", "https://example.com/cb") }, "redirect_uri_mismatch"},
			{"http elsewhere", func(v url.Values) { v.Set("redirect_uri", "http://example.com/cb") }, "redirect_uri_mismatch"},
			{"private address", func(v url.Values) { v.Set("redirect_uri", "http://192.168.1.1:8080/cb") }, "redirect_uri_mismatch"},
			{"https loopback", func(v url.Values) { v.Set("redirect_uri", "https://127.0.0.1:8080/cb") }, "redirect_uri_mismatch"},
			{"no redirect", func(v url.Values) { v.Del("redirect_uri") }, "redirect_uri_mismatch"},
			{"no PKCE", func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") }, "invalid_request"},
			{"plain PKCE", func(v url.Values) { v.Set("code_challenge_method", "plain") }, "invalid_request"},
			{"no scope", func(v url.Values) { v.Del("scope") }, "invalid_request"},
			{"unknown client", func(v url.Values) { v.Set("client_id", "other.apps.googleusercontent.com") }, "invalid_client"},
			{"implicit flow", func(v url.Values) { v.Set("response_type", "token") }, "unsupported_response_type"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := authParams(c, scopeDriveFile, verifier)
				tc.edit(q)
				status, loc, body := authorize(t, c, q)
				if tc.kind == "" {
					if status != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), q.Get("redirect_uri")+"?") || loc.Query().Get("code") == "" {
						t.Errorf("auth = %d %v %q", status, loc, body)
					}
					return
				}
				if status != 400 || loc != nil || !strings.Contains(body, "Error 400: "+tc.kind) {
					t.Errorf("auth = %d %v %q, want 400 %s", status, loc, body, tc.kind)
				}
			})
		}
	})

	t.Run("refresh", func(t *testing.T) {
		access, refresh := signIn(t, e, scopeDriveFile)
		before := e.fake.Refreshes()
		status, out := postToken(t, c.TokenURI, refreshForm(c, refresh))
		if status != 200 {
			t.Fatalf("refresh = %d %v", status, out)
		}
		if _, has := out["refresh_token"]; has {
			t.Errorf("refresh answer has a new refresh token: %v", out)
		}
		fresh, _ := out["access_token"].(string)
		if fresh == "" || fresh == access || out["scope"] != scopeDriveFile {
			t.Errorf("refresh answer = %v", out)
		}
		if n := e.fake.Refreshes(); n != before+1 {
			t.Errorf("Refreshes = %d, want %d", n, before+1)
		}
		for _, tok := range []string{access, fresh} {
			if r := getBook(tok); r.status != 200 {
				t.Errorf("call with %s: %d", tok, r.status)
			}
		}
		// Another client cannot use the grant.
		other := refreshForm(c, refresh)
		other.Set("client_secret", "x")
		status, out = postToken(t, c.TokenURI, other)
		wantOAuthError(t, status, out, 401, "invalid_client", "Unauthorized")
	})

	t.Run("RevokeAll", func(t *testing.T) {
		access, refresh := signIn(t, e, scopeDriveFile)
		e.fake.RevokeAll()
		before := e.fake.Refreshes()
		status, out := postToken(t, c.TokenURI, refreshForm(c, refresh))
		wantOAuthError(t, status, out, 400, "invalid_grant", "Token has been expired or revoked.")
		if e.fake.Refreshes() != before {
			t.Error("a refused refresh was counted")
		}
		wantRawError(t, getBook(access), 401, "UNAUTHENTICATED", msgBadToken)
	})

	t.Run("revoke endpoint", func(t *testing.T) {
		for _, which := range []string{"refresh", "access"} {
			t.Run(which, func(t *testing.T) {
				access, refresh := signIn(t, e, scopeDriveFile)
				tok := map[string]string{"refresh": refresh, "access": access}[which]
				resp, err := http.PostForm(e.url+"/revoke", url.Values{"token": {tok}})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != "{}" {
					t.Errorf("revoke = %d %s", resp.StatusCode, b)
				}
				status, out := postToken(t, c.TokenURI, refreshForm(c, refresh))
				wantOAuthError(t, status, out, 400, "invalid_grant", "Token has been expired or revoked.")
				wantRawError(t, getBook(access), 401, "UNAUTHENTICATED", msgBadToken)
				status, out = postToken(t, e.url+"/revoke", url.Values{"token": {refresh}})
				wantOAuthError(t, status, out, 400, "invalid_token", "Token expired or revoked")
			})
		}
	})

	t.Run("ExpireTokens", func(t *testing.T) {
		access, refresh := signIn(t, e, scopeDriveFile)
		if r := getBook(access); r.status != 200 {
			t.Fatalf("before: %d", r.status)
		}
		e.fake.ExpireTokens()
		wantRawError(t, getBook(access), 401, "UNAUTHENTICATED", msgBadToken)
		status, out := postToken(t, c.TokenURI, refreshForm(c, refresh))
		if status != 200 {
			t.Fatalf("refresh = %d %v", status, out)
		}
		if r := getBook(out["access_token"].(string)); r.status != 200 {
			t.Errorf("refreshed token: %d", r.status)
		}
	})

	t.Run("scopes", func(t *testing.T) {
		for _, tc := range []struct {
			scope string
			ok    bool
		}{
			{"openid", false},
			{"openid email", false},
			{"https://www.googleapis.com/auth/drive.readonly", false},
			{scopeDriveFile, true},
			{"https://www.googleapis.com/auth/drive", true},
			{"openid " + scopeSpreadsheets, true},
		} {
			t.Run(tc.scope, func(t *testing.T) {
				access, _ := signIn(t, e, tc.scope)
				r := getBook(access)
				if tc.ok {
					if r.status != 200 {
						t.Errorf("%d %s", r.status, r.body)
					}
					return
				}
				wantRawError(t, r, 403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.")
			})
		}
	})

	t.Run("scopes per method", func(t *testing.T) {
		// Each method takes the scopes its discovery document lists: Drive
		// is not reached with a token for Sheets alone, and a read-only
		// token reads.
		owner, _ := signIn(t, e, scopeDriveFile)
		id := newBook(t, sheetsClient(t, e.url, owner))
		const (
			drive           = "https://www.googleapis.com/auth/drive"
			driveReadonly   = "https://www.googleapis.com/auth/drive.readonly"
			sheetsReadonly  = "https://www.googleapis.com/auth/spreadsheets.readonly"
			denied, allowed = false, true
		)
		calls := []struct {
			name string
			call func(tok string) reply
		}{
			{"spreadsheets.get", func(tok string) reply { return do(t, "GET", e.url+"/v4/spreadsheets/"+id, "", tok) }},
			{"values.get", func(tok string) reply { return do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1", "", tok) }},
			{"values.batchGet", func(tok string) reply {
				return do(t, "GET", e.url+"/v4/spreadsheets/"+id+"/values:batchGet?ranges=Sheet1", "", tok)
			}},
			{"values.update", func(tok string) reply {
				return do(t, "PUT", e.url+"/v4/spreadsheets/"+id+"/values/Sheet1!A1?valueInputOption=RAW", `{"values":[["x"]]}`, tok)
			}},
			{"batchUpdate", func(tok string) reply {
				return do(t, "POST", e.url+"/v4/spreadsheets/"+id+":batchUpdate", `{"requests":[{"updateSpreadsheetProperties":{"properties":{"title":"t"},"fields":"title"}}]}`, tok)
			}},
			{"files.get", func(tok string) reply { return do(t, "GET", e.url+"/drive/v3/files/"+id, "", tok) }},
			{"files.update", func(tok string) reply { return do(t, "PATCH", e.url+"/drive/v3/files/"+id, `{}`, tok) }},
			{"files.create", func(tok string) reply {
				return do(t, "POST", e.url+"/drive/v3/files", `{"name":"f","mimeType":"`+mimeFolder+`"}`, tok)
			}},
			{"permissions.create", func(tok string) reply {
				return do(t, "POST", e.url+"/drive/v3/files/"+id+"/permissions?sendNotificationEmail=false", `{"role":"reader","type":"anyone"}`, tok)
			}},
		}
		for _, tc := range []struct {
			scope string
			want  []bool // per call above
		}{
			{scopeSpreadsheets, []bool{allowed, allowed, allowed, allowed, allowed, denied, denied, denied, denied}},
			{sheetsReadonly, []bool{allowed, allowed, allowed, denied, denied, denied, denied, denied, denied}},
			{driveReadonly, []bool{allowed, allowed, allowed, denied, denied, allowed, denied, denied, denied}},
			{drive, []bool{allowed, allowed, allowed, allowed, allowed, allowed, allowed, allowed, allowed}},
			{scopeDriveFile, []bool{allowed, allowed, allowed, allowed, allowed, allowed, allowed, allowed, allowed}},
		} {
			tok, _ := signIn(t, e, tc.scope)
			for i, c := range calls {
				r := c.call(tok)
				if tc.want[i] == denied {
					t.Run(tc.scope+"/"+c.name, func(t *testing.T) {
						wantRawError(t, r, 403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.")
					})
					continue
				}
				if r.status == 403 {
					t.Errorf("%s with %s: %d %s", c.name, tc.scope, r.status, r.body)
				}
			}
		}
	})

	t.Run("golang.org/x/oauth2", func(t *testing.T) {
		ctx := context.Background()
		conf := &oauth2.Config{
			ClientID: c.ClientID, ClientSecret: c.ClientSecret,
			Endpoint:    oauth2.Endpoint{AuthURL: c.AuthURI, TokenURL: c.TokenURI},
			RedirectURL: redirectURI,
			Scopes:      []string{scopeDriveFile},
		}
		verifier := oauth2.GenerateVerifier()
		resp, err := browser.Get(conf.AuthCodeURL("st", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			t.Fatalf("auth = %d: %v", resp.StatusCode, err)
		}
		tok, err := conf.Exchange(ctx, loc.Query().Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		if tok.RefreshToken == "" || !tok.Valid() {
			t.Errorf("token = %+v", tok)
		}
		svc, err := sheetsapi.NewService(ctx, option.WithEndpoint(e.url+"/"), option.WithHTTPClient(conf.Client(ctx, tok)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Spreadsheets.Create(&sheetsapi.Spreadsheet{}).Do(); err != nil {
			t.Fatal(err)
		}
		before := e.fake.Refreshes()
		tok.Expiry = time.Now().Add(-time.Minute)
		fresh, err := conf.TokenSource(ctx, tok).Token()
		if err != nil {
			t.Fatal(err)
		}
		if fresh.AccessToken == tok.AccessToken || e.fake.Refreshes() != before+1 {
			t.Errorf("refresh: token %q (was %q), Refreshes %d (was %d)", fresh.AccessToken, tok.AccessToken, e.fake.Refreshes(), before)
		}
	})
}

// TestAuthOptional checks a fake without RequireAuth treats calls without a
// token, or with a token it does not know, as its user.
func TestAuthOptional(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	for _, tok := range []string{"", "ya29.made-up"} {
		if r := do(t, "POST", e.url+"/v4/spreadsheets", `{}`, tok); r.status != 200 {
			t.Errorf("token %q: %d %s", tok, r.status, r.body)
		}
	}
	// A token it issued is still checked.
	access, _ := signIn(t, e, "openid")
	wantRawError(t, do(t, "POST", e.url+"/v4/spreadsheets", `{}`, access), 403, "PERMISSION_DENIED", "Request had insufficient authentication scopes.")
	access, _ = signIn(t, e, scopeDriveFile)
	e.fake.ExpireTokens()
	wantRawError(t, do(t, "POST", e.url+"/v4/spreadsheets", `{}`, access), 401, "UNAUTHENTICATED", msgBadToken)
}

// ---------------------------------------------------------------------------
// Service accounts
// ---------------------------------------------------------------------------

func TestServiceAccount(t *testing.T) {
	e := start(t, sheetsfake.Options{RequireAuth: true})
	k, key, _ := newSAKey(t, e.fake, saEmail)

	t.Run("key file", func(t *testing.T) {
		want := saKey{Type: "service_account", ProjectID: "annosheet-fake", PrivateKeyID: "fake-key-1", ClientEmail: saEmail, ClientID: "1234567890", AuthURI: e.url + "/auth", TokenURI: e.url + "/token"}
		if d := cmp.Diff(want, k, cmpopts.IgnoreFields(saKey{}, "PrivateKey")); d != "" {
			t.Errorf("key (-want +got):\n%s", d)
		}
	})

	t.Run("JWT grant", func(t *testing.T) {
		status, out := postToken(t, k.TokenURI, url.Values{"grant_type": {jwtGrant}, "assertion": {signJWT(t, key, rs256, saClaims(saEmail, k.TokenURI))}})
		if status != 200 {
			t.Fatalf("token = %d %v", status, out)
		}
		if _, has := out["refresh_token"]; has || out["token_type"] != "Bearer" || out["expires_in"] != 3600.0 || out["scope"] != scopeDriveFile {
			t.Errorf("token answer = %v", out)
		}
	})

	t.Run("JWT refusals", func(t *testing.T) {
		_, otherKey, _ := newSAKey(t, e.fake, "other@proj.iam.gserviceaccount.com")
		claims := func(edit func(map[string]any)) map[string]any {
			c := saClaims(saEmail, k.TokenURI)
			edit(c)
			return c
		}
		good := signJWT(t, key, rs256, saClaims(saEmail, k.TokenURI))
		parts := strings.Split(good, ".")
		for _, tc := range []struct {
			name, assertion, desc string
		}{
			{"signed by another key", signJWT(t, otherKey, rs256, saClaims(saEmail, k.TokenURI)), "Invalid JWT Signature."},
			{"unknown issuer", signJWT(t, key, rs256, claims(func(c map[string]any) { c["iss"] = "nobody@proj.iam.gserviceaccount.com" })), "Invalid JWT Signature."},
			{"HS256", signJWT(t, key, map[string]any{"alg": "HS256", "typ": "JWT"}, saClaims(saEmail, k.TokenURI)), "Invalid JWT Signature."},
			{"tampered claims", parts[0] + "." + b64json(claims(func(c map[string]any) { c["scope"] = "https://www.googleapis.com/auth/drive" })) + "." + parts[2], "Invalid JWT Signature."},
			{"Google's audience", signJWT(t, key, rs256, claims(func(c map[string]any) { c["aud"] = "https://oauth2.googleapis.com/token" })), `Invalid JWT: audience is "https://oauth2.googleapis.com/token", not the token endpoint`},
			{"expired", signJWT(t, key, rs256, claims(func(c map[string]any) {
				c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
				c["exp"] = time.Now().Add(-time.Hour).Unix()
			})), "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."},
			{"lives over an hour", signJWT(t, key, rs256, claims(func(c map[string]any) {
				c["exp"] = time.Now().Add(time.Hour + time.Second).Unix()
			})), "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."},
			{"no scope", signJWT(t, key, rs256, claims(func(c map[string]any) { delete(c, "scope") })), "Invalid OAuth scope or ID token audience provided."},
			{"not a JWT", "abc.def", "Invalid JWT: not three parts"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, out := postToken(t, k.TokenURI, url.Values{"grant_type": {jwtGrant}, "assertion": {tc.assertion}})
				wantOAuthError(t, status, out, 400, "invalid_grant", tc.desc)
			})
		}
	})

	t.Run("golang.org/x/oauth2/jwt", func(t *testing.T) {
		conf := &jwt.Config{Email: k.ClientEmail, PrivateKey: []byte(k.PrivateKey), PrivateKeyID: k.PrivateKeyID, Scopes: []string{scopeDriveFile}, TokenURL: k.TokenURI}
		tok, err := conf.TokenSource(context.Background()).Token()
		if err != nil {
			t.Fatal(err)
		}
		f, err := driveClient(t, e.url, tok.AccessToken).Files.Create(&drive.File{Name: "d", MimeType: mimeFolder}).SupportsAllDrives(true).Do()
		// A service account cannot own a folder in My Drive either.
		wantAPIError(t, err, 403, msgNoQuota)
		if f != nil {
			t.Errorf("created %+v", f)
		}
	})

	tok := saToken(t, k, key)
	sa := sheetsClient(t, e.url, tok)
	saDrive := driveClient(t, e.url, tok)

	t.Run("no storage quota", func(t *testing.T) {
		_, err := sa.Spreadsheets.Create(&sheetsapi.Spreadsheet{}).Do()
		wantAPIError(t, err, 403, msgNoQuota)
		var gerr *googleapi.Error
		errors.As(err, &gerr)
		r := do(t, "POST", e.url+"/v4/spreadsheets", `{}`, tok)
		wantRawError(t, r, 403, "PERMISSION_DENIED", msgNoQuota)

		_, err = saDrive.Files.Create(&drive.File{Name: "s", MimeType: mimeSheet}).Do()
		wantAPIError(t, err, 403, msgNoQuota)

		mine := e.fake.AddFolder("x", false, saEmail)
		for _, all := range []bool{false, true} {
			_, err = saDrive.Files.Create(&drive.File{Name: "s", MimeType: mimeSheet, Parents: []string{mine}}).SupportsAllDrives(all).Do()
			wantAPIError(t, err, 403, msgNoQuota)
		}
		if n := len(e.fake.Spreadsheets()); n != 0 {
			t.Errorf("%d spreadsheets made", n)
		}
	})

	t.Run("shared drive", func(t *testing.T) {
		shared := e.fake.AddFolder("x", true, saEmail)
		_, err := saDrive.Files.Create(&drive.File{Name: "Batch 1", MimeType: mimeSheet, Parents: []string{shared}}).Do()
		wantAPIError(t, err, 404, "File not found: "+shared+".")

		f, err := saDrive.Files.Create(&drive.File{Name: "Batch 1", MimeType: mimeSheet, Parents: []string{shared}}).SupportsAllDrives(true).Do()
		if err != nil {
			t.Fatal(err)
		}
		if f.Id == "" || f.Name != "Batch 1" || f.MimeType != mimeSheet || !cmp.Equal(f.Parents, []string{shared}) || !strings.HasPrefix(f.DriveId, "0Afake") || f.Kind != "drive#file" {
			t.Errorf("file = %+v", f)
		}
		if parents, _, _, ok := e.fake.FileInfo(f.Id); !ok || !cmp.Equal(parents, []string{shared}) {
			t.Errorf("FileInfo parents = %v %v", parents, ok)
		}

		sp, err := sa.Spreadsheets.Get(f.Id).Do()
		if err != nil {
			t.Fatal(err)
		}
		wantSheets := []*sheetsapi.SheetProperties{{SheetId: 0, Title: "Sheet1", Index: 0, SheetType: "GRID", GridProperties: &sheetsapi.GridProperties{RowCount: 1000, ColumnCount: 26}}}
		var got []*sheetsapi.SheetProperties
		for _, sh := range sp.Sheets {
			got = append(got, sh.Properties)
		}
		if d := cmp.Diff(wantSheets, got); d != "" {
			t.Errorf("sheets (-want +got):\n%s", d)
		}
		if sp.Properties.Title != "Batch 1" {
			t.Errorf("title = %q", sp.Properties.Title)
		}
		mustWrite(t, sa, f.Id, "Sheet1!A1", "RAW", []any{"by the service account"})

		if _, err := saDrive.Files.Get(f.Id).SupportsAllDrives(true).Do(); err != nil {
			t.Error(err)
		}
		_, err = saDrive.Files.Get(f.Id).Do()
		wantAPIError(t, err, 404, "File not found: "+f.Id+".")

		sub, err := saDrive.Files.Create(&drive.File{Name: "sub", MimeType: mimeFolder, Parents: []string{shared}}).SupportsAllDrives(true).Do()
		if err != nil || sub.DriveId != f.DriveId {
			t.Errorf("folder in the shared drive = %+v, %v", sub, err)
		}

		// The user is not a member of the shared drive.
		user, _ := signIn(t, e, scopeDriveFile)
		_, err = sheetsClient(t, e.url, user).Spreadsheets.Get(f.Id).Do()
		wantAPIError(t, err, 404, msgNotFound)
	})
}

// ---------------------------------------------------------------------------
// Drive
// ---------------------------------------------------------------------------

func TestDrive(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	k, key, _ := newSAKey(t, e.fake, saEmail)
	saTok := saToken(t, k, key)
	saSheets, saDrive := sheetsClient(t, e.url, saTok), driveClient(t, e.url, saTok)
	parentsOf := func(t *testing.T, id string) []string {
		t.Helper()
		parents, _, _, ok := e.fake.FileInfo(id)
		if !ok {
			t.Fatalf("FileInfo(%s): no such file", id)
		}
		return parents
	}

	t.Run("move between folders", func(t *testing.T) {
		id := newBook(t, e.sheets)
		a, b := e.fake.AddFolder("A", false), e.fake.AddFolder("B", false)
		if d := cmp.Diff([]string{"root"}, parentsOf(t, id)); d != "" {
			t.Errorf("parents (-want +got):\n%s", d)
		}
		f, err := e.drive.Files.Update(id, &drive.File{}).AddParents(a).RemoveParents("root").Do()
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(f.Parents, []string{a}) || !cmp.Equal(parentsOf(t, id), []string{a}) {
			t.Errorf("after moving to A: reply %v, FileInfo %v", f.Parents, parentsOf(t, id))
		}

		_, err = e.drive.Files.Update(id, &drive.File{}).AddParents(b).Do()
		wantAPIError(t, err, 403, "Increasing the number of parents is not allowed. A file can only have one parent.")
		if !cmp.Equal(parentsOf(t, id), []string{a}) {
			t.Errorf("a refused move changed the parents: %v", parentsOf(t, id))
		}

		if _, err := e.drive.Files.Update(id, &drive.File{}).AddParents(b).RemoveParents(a).Do(); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(parentsOf(t, id), []string{b}) {
			t.Errorf("after moving to B: %v", parentsOf(t, id))
		}

		other := newBook(t, e.sheets)
		_, err = e.drive.Files.Update(id, &drive.File{}).AddParents(other).RemoveParents(b).Do()
		wantAPIError(t, err, 400, "The specified parent is not a folder.")
		_, err = e.drive.Files.Update(id, &drive.File{}).AddParents("nope").RemoveParents(b).Do()
		wantAPIError(t, err, 404, "File not found: nope.")
		if !cmp.Equal(parentsOf(t, id), []string{b}) {
			t.Errorf("refused moves changed the parents: %v", parentsOf(t, id))
		}
	})

	t.Run("rename", func(t *testing.T) {
		id := newBook(t, e.sheets)
		f, err := e.drive.Files.Update(id, &drive.File{Name: "Renamed"}).Do()
		if err != nil || f.Name != "Renamed" {
			t.Fatalf("update = %+v, %v", f, err)
		}
		sp, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil || sp.Properties.Title != "Renamed" {
			t.Errorf("spreadsheet title = %v, %v", sp.Properties.Title, err)
		}
	})

	t.Run("files.get", func(t *testing.T) {
		id := newBook(t, e.sheets)
		got, err := e.drive.Files.Get(id).Fields("id,name,mimeType,parents,webViewLink").Do()
		if err != nil {
			t.Fatal(err)
		}
		want := &drive.File{Id: id, Name: "Untitled spreadsheet", MimeType: mimeSheet, Parents: []string{"root"}, Kind: "drive#file", WebViewLink: e.url + "/spreadsheets/d/" + id + "/edit", Version: 1}
		if d := cmp.Diff(want, got, ignoreServer); d != "" {
			t.Errorf("file (-want +got):\n%s", d)
		}
		// Its version rises with every change, and only with a change.
		version := func() int64 {
			t.Helper()
			f, err := e.drive.Files.Get(id).Fields("version").Do()
			if err != nil {
				t.Fatal(err)
			}
			return f.Version
		}
		if _, err := e.sheets.Spreadsheets.Values.Get(id, "A1").Do(); err != nil || version() != 1 {
			t.Errorf("a read changed the version to %d (%v)", version(), err)
		}
		if _, err := e.sheets.Spreadsheets.Values.Update(id, "A1", &sheetsapi.ValueRange{Values: [][]any{{"x"}}}).ValueInputOption("RAW").Do(); err != nil || version() != 2 {
			t.Errorf("after a value is written: version %d (%v), want 2", version(), err)
		}
		if _, err := e.drive.Files.Update(id, &drive.File{Name: "Renamed"}).Do(); err != nil || version() != 3 {
			t.Errorf("after a rename: version %d (%v), want 3", version(), err)
		}
		folder := e.fake.AddFolder("F", false)
		got, err = e.drive.Files.Get(folder).Do()
		if err != nil {
			t.Fatal(err)
		}
		if got.MimeType != mimeFolder || got.WebViewLink != "" || got.Name != "F" {
			t.Errorf("folder = %+v", got)
		}
		_, err = e.drive.Files.Get("nope").Do()
		wantAPIError(t, err, 404, "File not found: nope.")
	})

	t.Run("files.create", func(t *testing.T) {
		dir, err := e.drive.Files.Create(&drive.File{Name: "Dir", MimeType: mimeFolder}).Do()
		if err != nil {
			t.Fatal(err)
		}
		f, err := e.drive.Files.Create(&drive.File{Name: "In dir", MimeType: mimeSheet, Parents: []string{dir.Id}}).Do()
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(f.Parents, []string{dir.Id}) || f.DriveId != "" || f.WebViewLink != e.url+"/spreadsheets/d/"+f.Id+"/edit" {
			t.Errorf("file = %+v", f)
		}
		sp, err := e.sheets.Spreadsheets.Get(f.Id).Do()
		if err != nil {
			t.Fatal(err)
		}
		if sp.Properties.Title != "In dir" || len(sp.Sheets) != 1 || sp.Sheets[0].Properties.SheetId != 0 || sp.Sheets[0].Properties.Title != "Sheet1" {
			t.Errorf("spreadsheet = %+v", sp.Sheets[0].Properties)
		}
		noName, err := e.drive.Files.Create(&drive.File{MimeType: mimeSheet}).Do()
		if err != nil || noName.Name != "Untitled" {
			t.Errorf("unnamed file = %+v, %v", noName, err)
		}

		for _, tc := range []struct {
			name string
			file *drive.File
			code int
			msg  string
		}{
			{"two parents", &drive.File{Name: "x", MimeType: mimeSheet, Parents: []string{dir.Id, "root"}}, 403, ""},
			{"parent not a folder", &drive.File{Name: "x", MimeType: mimeSheet, Parents: []string{f.Id}}, 400, "The specified parent is not a folder."},
			{"unknown parent", &drive.File{Name: "x", MimeType: mimeSheet, Parents: []string{"nope"}}, 404, "File not found: nope."},
			{"other kind of file", &drive.File{Name: "x", MimeType: "text/plain"}, 400, `The fake creates spreadsheets and folders only, not "text/plain".`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := e.drive.Files.Create(tc.file).Do()
				wantAPIError(t, err, tc.code, tc.msg)
			})
		}
	})

	t.Run("permissions.create", func(t *testing.T) {
		type opts struct {
			message  string
			noNotify bool
			transfer bool
		}
		for _, tc := range []struct {
			name      string
			perm      *drive.Permission
			opts      opts
			code      int
			msg       string
			wantShare []sheetsfake.Share
			wantMails []sheetsfake.Mail
		}{
			{
				name: "writer with a message", perm: &drive.Permission{Role: "writer", Type: "user", EmailAddress: "ann@example.org"}, opts: opts{message: "Please annotate"},
				wantShare: []sheetsfake.Share{{Email: "ann@example.org", Role: "writer", Type: "user"}},
				wantMails: []sheetsfake.Mail{{To: "ann@example.org", Role: "writer", Message: "Please annotate"}},
			},
			{
				name: "without notification", perm: &drive.Permission{Role: "reader", Type: "user", EmailAddress: "bob@example.org"}, opts: opts{noNotify: true},
				wantShare: []sheetsfake.Share{{Email: "bob@example.org", Role: "reader", Type: "user"}},
			},
			{
				name: "group commenter", perm: &drive.Permission{Role: "commenter", Type: "group", EmailAddress: "team@example.org"},
				wantShare: []sheetsfake.Share{{Email: "team@example.org", Role: "commenter", Type: "group"}},
				wantMails: []sheetsfake.Mail{{To: "team@example.org", Role: "commenter"}},
			},
			{
				name: "anyone", perm: &drive.Permission{Role: "reader", Type: "anyone"},
				wantShare: []sheetsfake.Share{{Role: "reader", Type: "anyone"}},
			},
			{
				name: "owner with transferOwnership", perm: &drive.Permission{Role: "owner", Type: "user", EmailAddress: "boss@example.org"}, opts: opts{transfer: true},
				wantShare: []sheetsfake.Share{{Email: "boss@example.org", Role: "owner", Type: "user"}},
				wantMails: []sheetsfake.Mail{{To: "boss@example.org", Role: "owner"}},
			},
			{name: "invalid email", perm: &drive.Permission{Role: "writer", Type: "user", EmailAddress: "ann.example.org"}, code: 400, msg: `Bad Request. User message: "Invalid email address: ann.example.org"`},
			{name: "email with a space", perm: &drive.Permission{Role: "writer", Type: "user", EmailAddress: "ann @example.org"}, code: 400, msg: `Invalid email address: ann @example.org`},
			{name: "owner without transferOwnership", perm: &drive.Permission{Role: "owner", Type: "user", EmailAddress: "boss@example.org"}, code: 403, msg: "The transferOwnership parameter must be enabled when the permission role is 'owner'."},
			{name: "unknown role", perm: &drive.Permission{Role: "boss", Type: "user", EmailAddress: "ann@example.org"}, code: 400, msg: "The permission role field is required."},
			{name: "unknown type", perm: &drive.Permission{Role: "writer", Type: "robot", EmailAddress: "ann@example.org"}, code: 400, msg: "The permission type field is required and must be one of user, group, domain, anyone."},
			{name: "message without notification", perm: &drive.Permission{Role: "writer", Type: "user", EmailAddress: "ann@example.org"}, opts: opts{message: "hi", noNotify: true}, code: 400, msg: "An email message was given, but notification emails are turned off."},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := newBook(t, e.sheets)
				call := e.drive.Permissions.Create(id, tc.perm)
				if tc.opts.message != "" {
					call = call.EmailMessage(tc.opts.message)
				}
				if tc.opts.noNotify {
					call = call.SendNotificationEmail(false)
				}
				if tc.opts.transfer {
					call = call.TransferOwnership(true)
				}
				got, err := call.Do()
				_, shares, mails, _ := e.fake.FileInfo(id)
				if tc.code != 0 {
					wantAPIError(t, err, tc.code, tc.msg)
					if shares != nil || mails != nil {
						t.Errorf("a refused share was recorded: %v %v", shares, mails)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := &drive.Permission{Id: got.Id, Kind: "drive#permission", Role: tc.perm.Role, Type: tc.perm.Type, EmailAddress: tc.perm.EmailAddress}
				if d := cmp.Diff(want, got, ignoreServer); d != "" || got.Id == "" {
					t.Errorf("permission (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tc.wantShare, shares); d != "" {
					t.Errorf("shares (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tc.wantMails, mails); d != "" {
					t.Errorf("mails (-want +got):\n%s", d)
				}
			})
		}
	})

	t.Run("who can see a file", func(t *testing.T) {
		id := newBook(t, e.sheets)
		mustWrite(t, e.sheets, id, "Sheet1!A1", "RAW", []any{"secret"})

		// The service account is neither owner, member nor shared with.
		_, err := saDrive.Files.Get(id).Do()
		wantAPIError(t, err, 404, "File not found: "+id+".")
		_, err = saSheets.Spreadsheets.Get(id).Do()
		wantAPIError(t, err, 404, msgNotFound)
		_, err = saSheets.Spreadsheets.Values.Get(id, "Sheet1").Do()
		wantAPIError(t, err, 404, msgNotFound)
		_, err = writeValues(saSheets, id, "Sheet1!A1", "RAW", []any{"x"})
		wantAPIError(t, err, 404, msgNotFound)
		_, err = batch(saSheets, id, setString(0, 0, 0, "x"))
		wantAPIError(t, err, 404, msgNotFound)
		_, err = saDrive.Files.Update(id, &drive.File{Name: "mine"}).Do()
		wantAPIError(t, err, 404, "File not found: "+id+".")
		_, err = saDrive.Permissions.Create(id, &drive.Permission{Role: "writer", Type: "user", EmailAddress: saEmail}).Do()
		wantAPIError(t, err, 404, "File not found: "+id+".")
		err = saDrive.Files.Delete(id).Do()
		wantAPIError(t, err, 404, "File not found: "+id+".")

		// Shared with it, it can read and write, but not delete.
		if _, err := e.drive.Permissions.Create(id, &drive.Permission{Role: "writer", Type: "user", EmailAddress: saEmail}).SendNotificationEmail(false).Do(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([][]any{{"secret"}}, readValues(t, saSheets, id, "Sheet1", "")); d != "" {
			t.Errorf("values seen by the service account (-want +got):\n%s", d)
		}
		err = saDrive.Files.Delete(id).Do()
		wantAPIError(t, err, 403, "The user does not have sufficient permissions for this file.")

		// A member of the folder a file is in can use the file.
		other := newBook(t, e.sheets)
		team := e.fake.AddFolder("team", false, sheetsfake.FakeUser, saEmail)
		if _, err := saSheets.Spreadsheets.Get(other).Do(); err == nil {
			t.Fatal("the service account saw a file before it was in its folder")
		}
		if _, err := e.drive.Files.Update(other, &drive.File{}).AddParents(team).RemoveParents("root").Do(); err != nil {
			t.Fatal(err)
		}
		if _, err := saSheets.Spreadsheets.Get(other).Do(); err != nil {
			t.Errorf("member of the parent folder: %v", err)
		}
		// And the user cannot see a folder it is not a member of.
		theirs := e.fake.AddFolder("theirs", false, saEmail)
		_, err = e.drive.Files.Get(theirs).Do()
		wantAPIError(t, err, 404, "File not found: "+theirs+".")
	})

	t.Run("files.delete", func(t *testing.T) {
		id := newBook(t, e.sheets)
		if err := e.drive.Files.Delete(id).Do(); err != nil {
			t.Fatal(err)
		}
		_, err := e.drive.Files.Get(id).Do()
		wantAPIError(t, err, 404, "File not found: "+id+".")
		_, err = e.sheets.Spreadsheets.Get(id).Do()
		wantAPIError(t, err, 404, msgNotFound)
		_, err = e.sheets.Spreadsheets.Values.Get(id, "Sheet1").Do()
		wantAPIError(t, err, 404, msgNotFound)
		if _, _, _, ok := e.fake.FileInfo(id); ok {
			t.Error("FileInfo still knows the file")
		}
		if slices.Contains(e.fake.Spreadsheets(), id) {
			t.Error("Spreadsheets() still lists it")
		}
		wantAPIError(t, e.drive.Files.Delete(id).Do(), 404, "File not found: "+id+".")
	})
}

// ---------------------------------------------------------------------------
// spreadsheets.get with grid data
// ---------------------------------------------------------------------------

func TestGridData(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	format := &sheetsapi.CellFormat{
		BackgroundColor:   &sheetsapi.Color{Red: 1, Green: 0.5},
		TextFormat:        &sheetsapi.TextFormat{Bold: true},
		WrapStrategy:      "WRAP",
		NumberFormat:      &sheetsapi.NumberFormat{Type: "TEXT"},
		VerticalAlignment: "TOP",
	}

	t.Run("everything set comes back", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4, FrozenRowCount: 1}})
		a1 := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("hello")}, UserEnteredFormat: format, Note: "n1", DataValidation: listRule("yes", "no")}
		b2 := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{NumberValue: ptr(2.0)}, Note: "n2"}
		boolRule := &sheetsapi.DataValidationRule{Condition: &sheetsapi.BooleanCondition{Type: "BOOLEAN"}}
		protected := &sheetsapi.ProtectedRange{Range: grid(0, 0, 1, 0, 4), Description: "header", WarningOnly: true, UnprotectedRanges: []*sheetsapi.GridRange{grid(0, 0, 1, 1, 2)}}
		filter := &sheetsapi.BasicFilter{Range: grid(0, 0, 5, 0, 4)}
		resp := mustBatch(t, e.sheets, id,
			setCells(0, 0, 0, "*", a1),
			setCells(0, 1, 1, "userEnteredValue,note", b2),
			&sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 2, 3, 2, 3), Rule: boolRule}},
			&sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 0, 1, 2, 4), MergeType: "MERGE_ALL"}},
			&sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: protected}},
			&sheetsapi.Request{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: filter}},
			&sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
				Range:      &sheetsapi.DimensionRange{SheetId: 0, Dimension: "COLUMNS", StartIndex: 1, EndIndex: 2},
				Properties: &sheetsapi.DimensionProperties{PixelSize: 250, HiddenByUser: true},
				Fields:     "pixelSize,hiddenByUser",
			}},
			&sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
				Range:      &sheetsapi.DimensionRange{SheetId: 0, Dimension: "COLUMNS", StartIndex: 3, EndIndex: 4},
				Properties: &sheetsapi.DimensionProperties{PixelSize: 40},
				Fields:     "pixelSize",
			}},
			rowSize(1, 60, false),
			&sheetsapi.Request{UpdateDimensionProperties: &sheetsapi.UpdateDimensionPropertiesRequest{
				Range:      &sheetsapi.DimensionRange{SheetId: 0, Dimension: "ROWS", StartIndex: 8, EndIndex: 10},
				Properties: &sheetsapi.DimensionProperties{HiddenByUser: true},
				Fields:     "hiddenByUser",
			}},
		)
		wantProtected := &sheetsapi.ProtectedRange{ProtectedRangeId: 1, Range: grid(0, 0, 1, 0, 4), Description: "header", WarningOnly: true, UnprotectedRanges: []*sheetsapi.GridRange{grid(0, 0, 1, 1, 2)}}
		if r := resp.Replies[4].AddProtectedRange; r == nil || !cmp.Equal(r.ProtectedRange, wantProtected) {
			t.Errorf("addProtectedRange reply = %+v", resp.Replies[4])
		}

		sp := withGrid(t, e.sheets, id)
		if len(sp.Sheets) != 1 {
			t.Fatalf("%d sheets", len(sp.Sheets))
		}
		got := sp.Sheets[0]
		wantData := []*sheetsapi.GridData{{
			RowData: []*sheetsapi.RowData{
				{Values: []*sheetsapi.CellData{a1}},
				{Values: []*sheetsapi.CellData{{}, b2}},
				{Values: []*sheetsapi.CellData{{}, {}, {DataValidation: boolRule}}},
			},
			ColumnMetadata: []*sheetsapi.DimensionProperties{{PixelSize: 100}, {PixelSize: 250, HiddenByUser: true}, {PixelSize: 100}, {PixelSize: 40}},
			// Every row of the sheet, 21 pixels high unless set.
			RowMetadata: []*sheetsapi.DimensionProperties{
				{PixelSize: 21}, {PixelSize: 60}, {PixelSize: 21}, {PixelSize: 21}, {PixelSize: 21},
				{PixelSize: 21}, {PixelSize: 21}, {PixelSize: 21}, {PixelSize: 21, HiddenByUser: true}, {PixelSize: 21, HiddenByUser: true},
			},
		}}
		if d := cmp.Diff(wantData, got.Data); d != "" {
			t.Errorf("data (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]*sheetsapi.GridRange{grid(0, 0, 1, 2, 4)}, got.Merges); d != "" {
			t.Errorf("merges (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]*sheetsapi.ProtectedRange{wantProtected}, got.ProtectedRanges); d != "" {
			t.Errorf("protected ranges (-want +got):\n%s", d)
		}
		if d := cmp.Diff(filter, got.BasicFilter); d != "" {
			t.Errorf("basic filter (-want +got):\n%s", d)
		}
		if got.Properties.GridProperties.FrozenRowCount != 1 {
			t.Errorf("grid properties = %+v", got.Properties.GridProperties)
		}

		// Without grid data: the same sheet, no data.
		plain, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		if p := plain.Sheets[0]; p.Data != nil || len(p.Merges) != 1 || len(p.ProtectedRanges) != 1 || p.BasicFilter == nil {
			t.Errorf("without grid data: %+v", p)
		}
	})

	t.Run("protected ranges are per sheet", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "A"}, &sheetsapi.SheetProperties{SheetId: 3, Title: "B"})
		mustBatch(t, e.sheets, id,
			&sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{Range: grid(3, 0, 1, 0, 1)}}},
			&sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{Range: grid(0, 0, 1, 0, 1)}}},
		)
		sp, err := e.sheets.Spreadsheets.Get(id).Do()
		if err != nil {
			t.Fatal(err)
		}
		a, b := sp.Sheets[0].ProtectedRanges, sp.Sheets[1].ProtectedRanges
		if len(a) != 1 || a[0].ProtectedRangeId != 2 || len(b) != 1 || b[0].ProtectedRangeId != 1 || b[0].Range.SheetId != 3 {
			t.Errorf("protected ranges: A %+v, B %+v", a, b)
		}
		_, err = batch(e.sheets, id, &sheetsapi.Request{AddProtectedRange: &sheetsapi.AddProtectedRangeRequest{ProtectedRange: &sheetsapi.ProtectedRange{Range: grid(9, 0, 1, 0, 1)}}})
		wantAPIError(t, err, 400, "Invalid requests[0]: No grid with id: 9")
	})

	t.Run("merge over a merge refused", func(t *testing.T) {
		id := newBook(t, e.sheets)
		mustBatch(t, e.sheets, id, &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 0, 2, 0, 2), MergeType: "MERGE_ALL"}})
		_, err := batch(e.sheets, id, &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 1, 3, 1, 3), MergeType: "MERGE_ALL"}})
		wantAPIError(t, err, 400, "Invalid requests[0]: You can't merge cells that are already merged.")
	})

	t.Run("field masks", func(t *testing.T) {
		id := newBook(t, e.sheets)
		base := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("v")}, UserEnteredFormat: format, Note: "n", DataValidation: listRule("a")}
		border := &sheetsapi.Border{Style: "SOLID", Color: &sheetsapi.Color{Green: 1}}
		update := &sheetsapi.CellData{
			UserEnteredValue: &sheetsapi.ExtendedValue{NumberValue: ptr(9.0)},
			UserEnteredFormat: &sheetsapi.CellFormat{
				BackgroundColor:     &sheetsapi.Color{Blue: 1},
				TextFormat:          &sheetsapi.TextFormat{Italic: true, FontSize: 14, ForegroundColor: &sheetsapi.Color{Red: 0.5}},
				WrapStrategy:        "CLIP",
				NumberFormat:        &sheetsapi.NumberFormat{Type: "NUMBER", Pattern: "0.00"},
				VerticalAlignment:   "BOTTOM",
				HorizontalAlignment: "CENTER",
				Padding:             &sheetsapi.Padding{Left: 4},
				Borders:             &sheetsapi.Borders{Top: border, Bottom: border},
			},
			Note: "m",
		}
		with := func(edit func(c *sheetsapi.CellData, f *sheetsapi.CellFormat)) *sheetsapi.CellData {
			c := *base
			f := *format
			c.UserEnteredFormat = &f
			edit(&c, &f)
			return &c
		}
		for _, tc := range []struct {
			fields string
			want   *sheetsapi.CellData
		}{
			{"userEnteredFormat.backgroundColor", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.BackgroundColor = update.UserEnteredFormat.BackgroundColor
			})},
			{"userEnteredFormat.textFormat", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.TextFormat = update.UserEnteredFormat.TextFormat
			})},
			{"userEnteredFormat.wrapStrategy", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.WrapStrategy = "CLIP" })},
			{"userEnteredFormat.numberFormat", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.NumberFormat = update.UserEnteredFormat.NumberFormat
			})},
			{"userEnteredFormat.verticalAlignment", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.VerticalAlignment = "BOTTOM" })},
			{"userEnteredFormat.horizontalAlignment", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.HorizontalAlignment = "CENTER" })},
			{"userEnteredFormat.padding", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.Padding = &sheetsapi.Padding{Left: 4} })},
			{"userEnteredFormat.borders", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.Borders = update.UserEnteredFormat.Borders })},
			{"userEnteredFormat.borders.top", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.Borders = &sheetsapi.Borders{Top: border} })},
			// One part of the text format; the rest stays (bold).
			{"userEnteredFormat.textFormat.italic", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.TextFormat = &sheetsapi.TextFormat{Bold: true, Italic: true}
			})},
			{"userEnteredFormat.textFormat.fontSize,userEnteredFormat.textFormat.foregroundColor", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.TextFormat = &sheetsapi.TextFormat{Bold: true, FontSize: 14, ForegroundColor: &sheetsapi.Color{Red: 0.5}}
			})},
			{"userEnteredFormat.textFormat.bold", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { f.TextFormat = nil })},
			{"userEnteredFormat.backgroundColor,userEnteredFormat.wrapStrategy", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				f.BackgroundColor, f.WrapStrategy = update.UserEnteredFormat.BackgroundColor, "CLIP"
			})},
			{"userEnteredFormat", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { c.UserEnteredFormat = update.UserEnteredFormat })},
			{"userEnteredValue", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { c.UserEnteredValue = update.UserEnteredValue })},
			{"note", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { c.Note = "m" })},
			{"dataValidation", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) { c.DataValidation = nil })},
			{"userEnteredValue, note", with(func(c *sheetsapi.CellData, f *sheetsapi.CellFormat) {
				c.UserEnteredValue, c.Note = update.UserEnteredValue, "m"
			})},
			{"*", update},
		} {
			t.Run(tc.fields, func(t *testing.T) {
				mustBatch(t, e.sheets, id, setCells(0, 0, 0, "*", base))
				mustBatch(t, e.sheets, id, &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(0, 0, 1, 0, 1), Cell: update, Fields: tc.fields}})
				if d := cmp.Diff(tc.want, cellAt(withGrid(t, e.sheets, id), 0, 0, 0)); d != "" {
					t.Errorf("A1 (-want +got):\n%s", d)
				}
			})
		}
		_, err := batch(e.sheets, id, &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{Start: &sheetsapi.GridCoordinate{}, Rows: []*sheetsapi.RowData{{Values: []*sheetsapi.CellData{update}}}}})
		wantAPIError(t, err, 400, "Invalid requests[0]: At least one field must be updated, but none specified.")

		// A part of the format the fake does not keep is refused, not
		// dropped.
		for _, f := range []string{"userEnteredFormat.textRotation", "userEnteredFormat.textFormat.link", "userEnteredFormat.numberFormat.pattern", "userEnteredFormat.borders.middle", "effectiveFormat"} {
			mustBatch(t, e.sheets, id, setCells(0, 0, 0, "*", base))
			_, err := batch(e.sheets, id, &sheetsapi.Request{RepeatCell: &sheetsapi.RepeatCellRequest{Range: grid(0, 0, 1, 0, 1), Cell: update, Fields: "note," + f}})
			wantAPIError(t, err, 400, fmt.Sprintf("Invalid requests[0]: the fake does not update cell field %q", f))
			if c := cellAt(withGrid(t, e.sheets, id), 0, 0, 0); c == nil || c.Note != "n" {
				t.Errorf("%s: a refused request changed A1: %+v", f, c)
			}
		}
	})

	t.Run("updateCells into a range", func(t *testing.T) {
		id := newBook(t, e.sheets)
		full := func(s string) *sheetsapi.CellData {
			return &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr(s)}, Note: "note " + s}
		}
		for r, row := range [][]string{{"a1", "b1", "c1"}, {"a2", "b2", "c2"}, {"a3", "b3", "c3"}} {
			var cells []*sheetsapi.CellData
			for _, v := range row {
				cells = append(cells, full(v))
			}
			mustBatch(t, e.sheets, id, setCells(0, int64(r), 0, "*", cells...))
		}
		// Into A1:B2, one row of one cell: the cells of the range it does
		// not cover lose their value, and keep their note (not in the
		// mask); C1 and row 3 are outside.
		mustBatch(t, e.sheets, id, &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{
			Range:  grid(0, 0, 2, 0, 2),
			Rows:   []*sheetsapi.RowData{{Values: []*sheetsapi.CellData{{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("x")}}}}},
			Fields: "userEnteredValue",
		}})
		want := [][]any{{"x", "", "c1"}, {"", "", "c2"}, {"a3", "b3", "c3"}}
		if d := cmp.Diff(want, readValues(t, e.sheets, id, "Sheet1!A1:C3", "")); d != "" {
			t.Errorf("values (-want +got):\n%s", d)
		}
		if c := cellAt(withGrid(t, e.sheets, id), 0, 1, 1); c == nil || c.Note != "note b2" {
			t.Errorf("B2 = %+v, want its note kept", c)
		}
		// No rows at all clears the whole range.
		mustBatch(t, e.sheets, id, &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{Range: grid(0, 2, 3, 0, 3), Fields: "note"}})
		if c := cellAt(withGrid(t, e.sheets, id), 0, 2, 2); c == nil || c.Note != "" || c.UserEnteredValue == nil {
			t.Errorf("C3 = %+v, want its note cleared and its value kept", c)
		}

		// Rows or cells past the range are Google's error.
		one := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr("y")}}
		for _, tc := range []struct {
			name string
			rows []*sheetsapi.RowData
			msg  string
		}{
			{"a row too many", []*sheetsapi.RowData{{Values: []*sheetsapi.CellData{one}}, {Values: []*sheetsapi.CellData{one}}, {Values: []*sheetsapi.CellData{one}}}, "Attempting to write row: 2, beyond the last requested row of: 1"},
			{"a cell too many", []*sheetsapi.RowData{{Values: []*sheetsapi.CellData{one}}, {Values: []*sheetsapi.CellData{one, one, one}}}, "Attempting to write column: 2, beyond the last requested column of: 1"},
		} {
			_, err := batch(e.sheets, id, &sheetsapi.Request{UpdateCells: &sheetsapi.UpdateCellsRequest{Range: grid(0, 0, 2, 0, 2), Rows: tc.rows, Fields: "userEnteredValue"}})
			wantAPIError(t, err, 400, "Invalid requests[0]: "+tc.msg)
		}
		if d := cmp.Diff(want, readValues(t, e.sheets, id, "Sheet1!A1:C3", "")); d != "" {
			t.Errorf("values after the refusals (-want +got):\n%s", d)
		}
	})

	t.Run("data validation rules", func(t *testing.T) {
		id := newBook(t, e.sheets)
		cond := func(typ string, values ...string) *sheetsapi.DataValidationRule {
			r := &sheetsapi.DataValidationRule{Condition: &sheetsapi.BooleanCondition{Type: typ}}
			for _, v := range values {
				r.Condition.Values = append(r.Condition.Values, &sheetsapi.ConditionValue{UserEnteredValue: v})
			}
			return r
		}
		for _, tc := range []struct {
			name string
			rule *sheetsapi.DataValidationRule
			msg  string // "" when accepted
		}{
			{"list", cond("ONE_OF_LIST", "a", "b"), ""},
			{"empty list", cond("ONE_OF_LIST"), "Invalid ConditionValue: ONE_OF_LIST requires at least one value"},
			{"range", cond("ONE_OF_RANGE", "=Sheet1!A1:A5"), ""},
			{"range without =", cond("ONE_OF_RANGE", "Sheet1!A1:A5"), "Invalid ConditionValue: ONE_OF_RANGE requires a single range, starting with ="},
			{"bad range", cond("ONE_OF_RANGE", "=Sheet1!A0"), "Unable to parse range: Sheet1!A0"},
			{"custom formula", cond("CUSTOM_FORMULA", "=LEN(A1)<5"), ""},
			{"formula without =", cond("CUSTOM_FORMULA", "LEN(A1)<5"), "Invalid ConditionValue: CUSTOM_FORMULA requires a single formula, starting with ="},
			{"between", cond("NUMBER_BETWEEN", "1", "5"), ""},
			{"between one value", cond("NUMBER_BETWEEN", "1"), "Invalid ConditionValue: NUMBER_BETWEEN requires exactly two values"},
			{"boolean", cond("BOOLEAN"), ""},
			{"boolean three values", cond("BOOLEAN", "a", "b", "c"), "Invalid ConditionValue: BOOLEAN takes at most two values"},
			{"no condition", &sheetsapi.DataValidationRule{Strict: true}, "Invalid DataValidationRule: condition is required"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := batch(e.sheets, id, &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 0, 1, 0, 1), Rule: tc.rule}})
				if tc.msg == "" {
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(tc.rule, cellAt(withGrid(t, e.sheets, id), 0, 0, 0).DataValidation); d != "" {
						t.Errorf("rule (-want +got):\n%s", d)
					}
					return
				}
				wantAPIError(t, err, 400, "Invalid requests[0]: "+tc.msg)
			})
		}
		// A request without a rule clears the validation.
		mustBatch(t, e.sheets, id, &sheetsapi.Request{SetDataValidation: &sheetsapi.SetDataValidationRequest{Range: grid(0, 0, 1, 0, 1)}})
		if c := cellAt(withGrid(t, e.sheets, id), 0, 0, 0); c != nil && c.DataValidation != nil {
			t.Errorf("validation not cleared: %+v", c.DataValidation)
		}
	})
}

// ---------------------------------------------------------------------------
// What Google refuses in layouts, lost answers, files.list and about.get
// ---------------------------------------------------------------------------

func TestLayoutRefusals(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	t.Run("freezing every row or column", func(t *testing.T) {
		_, err := e.sheets.Spreadsheets.Create(&sheetsapi.Spreadsheet{Sheets: []*sheetsapi.Sheet{{Properties: &sheetsapi.SheetProperties{
			Title: "S", GridProperties: &sheetsapi.GridProperties{RowCount: 1, ColumnCount: 3, FrozenRowCount: 1},
		}}}}).Do()
		wantAPIError(t, err, 400, "You can't freeze all visible rows on the sheet.")
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 5, ColumnCount: 2}})
		_, err = batch(e.sheets, id, &sheetsapi.Request{UpdateSheetProperties: &sheetsapi.UpdateSheetPropertiesRequest{
			Properties: &sheetsapi.SheetProperties{SheetId: 0, GridProperties: &sheetsapi.GridProperties{FrozenColumnCount: 2}},
			Fields:     "gridProperties.frozenColumnCount",
		}})
		wantAPIError(t, err, 400, "You can't freeze all visible columns on the sheet.")
	})
	t.Run("filters and vertical merges", func(t *testing.T) {
		id := newBook(t, e.sheets, &sheetsapi.SheetProperties{SheetId: 0, Title: "Sheet1", GridProperties: &sheetsapi.GridProperties{RowCount: 10, ColumnCount: 4}})
		vertical := &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 1, 4, 0, 1), MergeType: "MERGE_ALL"}}
		filter := &sheetsapi.Request{SetBasicFilter: &sheetsapi.SetBasicFilterRequest{Filter: &sheetsapi.BasicFilter{Range: grid(0, 0, 10, 0, 4)}}}
		_, err := batch(e.sheets, id, vertical, filter)
		wantAPIError(t, err, 400, "Invalid requests[1]: You can't create a filter over a range containing vertical merges.")
		mustBatch(t, e.sheets, id, filter)
		_, err = batch(e.sheets, id, vertical)
		wantAPIError(t, err, 400, "Invalid requests[0]: You can't merge cells vertically in a filtered range.")
		// Across a row is fine.
		mustBatch(t, e.sheets, id, &sheetsapi.Request{MergeCells: &sheetsapi.MergeCellsRequest{Range: grid(0, 1, 2, 0, 3), MergeType: "MERGE_ALL"}})
	})
}

func TestLostAnswer(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	e.fake.Inject(sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 503, Lost: true})
	_, err := e.drive.Files.Create(&drive.File{Name: "Made", MimeType: "application/vnd.google-apps.spreadsheet", AppProperties: map[string]string{"run": "r1"}}).Do()
	wantAPIError(t, err, 503, "injected fault (503)")
	// The caller did not hear of it, but the spreadsheet was made.
	if n := len(e.fake.Spreadsheets()); n != 1 {
		t.Fatalf("%d spreadsheets, want the one made before the answer was lost", n)
	}
}

func TestListFiles(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	folder := e.fake.AddFolder("F", false)
	shared := e.fake.AddFolder("S", true)
	mk := func(name, parent, run string) string {
		f := &drive.File{Name: name, MimeType: "application/vnd.google-apps.spreadsheet", Parents: []string{parent}, AppProperties: map[string]string{"annosheetRun": run}}
		got, err := e.drive.Files.Create(f).SupportsAllDrives(true).Do()
		if err != nil {
			t.Fatal(err)
		}
		return got.Id
	}
	a := mk("a", folder, "r1")
	b := mk("b", folder, "r2")
	c := mk("c", shared, "r1")
	names := func(q string, all bool) []string {
		call := e.drive.Files.List().Q(q)
		if all {
			call = call.Corpora("allDrives").IncludeItemsFromAllDrives(true).SupportsAllDrives(true)
		}
		l, err := call.Do()
		if err != nil {
			t.Fatalf("list %q: %v", q, err)
		}
		var out []string
		for _, f := range l.Files {
			out = append(out, f.Id)
		}
		return out
	}
	for _, tc := range []struct {
		q    string
		all  bool
		want []string
	}{
		{"appProperties has { key='annosheetRun' and value='r1' } and trashed = false", false, []string{a}},
		{"appProperties has { key='annosheetRun' and value='r1' } and trashed = false", true, []string{a, c}},
		{"trashed = false and appProperties has { key='annosheetRun' and value='r2' }", true, []string{b}},
		{"'" + folder + "' in parents and mimeType = 'application/vnd.google-apps.spreadsheet'", false, []string{a, b}},
		{"appProperties has { key='annosheetRun' and value='none' }", true, nil},
		{"trashed = true", true, nil},
	} {
		if d := cmp.Diff(tc.want, names(tc.q, tc.all)); d != "" {
			t.Errorf("%q (all drives %v) (-want +got):\n%s", tc.q, tc.all, d)
		}
	}
	_, err := e.drive.Files.List().Q("name contains 'a'").Do()
	wantAPIError(t, err, 400, "Invalid Value")
}

func TestAbout(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	about, err := e.drive.About.Get().Fields("user(emailAddress)").Do()
	if err != nil {
		t.Fatal(err)
	}
	if about.User == nil || about.User.EmailAddress != sheetsfake.FakeUser {
		t.Errorf("about.user %+v", about.User)
	}
	_, err = e.drive.About.Get().Do()
	wantAPIError(t, err, 400, "The 'fields' parameter is required for this method.")
}

// TestTextFormatRuns checks the rich text of a cell: runs written with
// a string are kept and read back, a link among them; a new value, by
// updateCells or the values API, erases them; runs on a number are not
// kept, as runs apply to strings only.
func TestTextFormatRuns(t *testing.T) {
	e := start(t, sheetsfake.Options{})
	id := newBook(t, e.sheets)
	link := []*sheetsapi.TextFormatRun{
		{StartIndex: 6, Format: &sheetsapi.TextFormat{Link: &sheetsapi.Link{Uri: "#gid=0&range=A9"}}},
	}
	text := func(s string) *sheetsapi.CellData {
		return &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{StringValue: ptr(s)}, TextFormatRuns: link}
	}
	mustBatch(t, e.sheets, id, setCells(0, 0, 0, "userEnteredValue,textFormatRuns", text("Text. → read in full"), text("B1 too")))
	got := cellAt(withGrid(t, e.sheets, id), 0, 0, 0)
	if d := cmp.Diff(link, got.TextFormatRuns, ignoreServer); d != "" {
		t.Errorf("A1 runs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([][]any{{"Text. → read in full", "B1 too"}}, readValues(t, e.sheets, id, "Sheet1!A1:B1", "")); d != "" {
		t.Errorf("values (-want +got):\n%s", d)
	}

	// A new value erases the runs, by either way of writing it.
	mustBatch(t, e.sheets, id, setString(0, 0, 0, "new"))
	mustWrite(t, e.sheets, id, "Sheet1!B1", "RAW", []any{"new too"})
	sp := withGrid(t, e.sheets, id)
	for c := range 2 {
		if got := cellAt(sp, 0, 0, c); got == nil || got.TextFormatRuns != nil {
			t.Errorf("cell %d of row 1 = %+v, want a value without runs", c, got)
		}
	}

	// Runs on a number are not kept.
	num := &sheetsapi.CellData{UserEnteredValue: &sheetsapi.ExtendedValue{NumberValue: ptr(3.0)}, TextFormatRuns: link}
	mustBatch(t, e.sheets, id, setCells(0, 1, 0, "userEnteredValue,textFormatRuns", num))
	if got := cellAt(withGrid(t, e.sheets, id), 0, 1, 0); got == nil || got.TextFormatRuns != nil {
		t.Errorf("A2 = %+v, want a number without runs", got)
	}
}
