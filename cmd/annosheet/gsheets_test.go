package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/googletest"

	sheetsapi "google.golang.org/api/sheets/v4"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/manifest"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/sheets/sheetsfake"
	"github.com/annosheet/annosheet/study"
	"github.com/annosheet/annosheet/templates"
	"github.com/annosheet/annosheet/testkit/goldtest"
	"github.com/annosheet/annosheet/testkit/syncbuf"
)

func startFake(t *testing.T, opt sheetsfake.Options) (*sheetsfake.Server, string) {
	t.Helper()
	fake, srv, err := sheetsfake.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return fake, srv.URL
}

func readManifest(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Read(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fillAsAnnotator opens a spreadsheet through the API, as the annotator's
// browser edits it, and lets fill answer.
func fillAsAnnotator(t *testing.T, endpoint, id string, fill func(*goldtest.Workbook) error) {
	t.Helper()
	ctx := context.Background()
	c, err := sheets.New(ctx, sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	w, err := goldtest.OpenSpreadsheet(ctx, c.Sheets, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
}

func readRecords(t *testing.T, jsonl string) []records.Annotation {
	t.Helper()
	var out []records.Annotation
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var a records.Annotation
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		out = append(out, a)
	}
	return out
}

// TestGSheetsLoop runs the whole study through the CLI against the fake:
// generate a spreadsheet in a folder, shared; the annotator fills it in
// through the API; pull by link and by manifest; export.
func TestGSheetsLoop(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{})
	folder := fake.AddFolder("Legal study", false)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir,
		"--format", "gsheets", "--endpoint", endpoint, "--no-auth",
		"--share", "ann1@example.org, ann2@example.org", "--message", "Thanks!", "--folder", folder)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	m := readManifest(t, dir)
	sp := m.Batches[0].Spreadsheet
	if m.Format != "gsheets" || sp == nil || sp.Status != manifest.Complete || sp.Endpoint != endpoint || m.Batches[0].File != "" {
		t.Fatalf("manifest batch %+v, format %s", m.Batches[0], m.Format)
	}
	if !strings.Contains(out, "wrote "+sp.URL+": 5 units in 5 rows") || !strings.Contains(out, "shared with ann1@example.org, ann2@example.org") {
		t.Errorf("stdout does not give the link and the sharing:\n%s", out)
	}
	if parents, shares, mails, _ := fake.FileInfo(sp.ID); len(parents) != 1 || parents[0] != folder || len(shares) != 2 || mails[0].Message != "Thanks!" {
		t.Errorf("folder %v, shares %v, mails %v", parents, shares, mails)
	}

	recs, err := goldtest.ReadJSONL[goldtest.LegalRecord](legalData)
	if err != nil {
		t.Fatal(err)
	}
	fillAsAnnotator(t, endpoint, sp.ID, func(w *goldtest.Workbook) error { return goldtest.FillLegal(w.RealIDs(m.OpaqueIDs), recs, "ann1") })

	// By link.
	byLink := filepath.Join(t.TempDir(), "a.jsonl")
	code, _, errs = runCLI(t, "pull", sp.URL, "--endpoint", endpoint, "--no-auth", "-o", byLink)
	if code != 0 {
		t.Fatalf("pull by link: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "pulled 5 records from 1 workbook: 5 complete") {
		t.Errorf("pull summary: %s", errs)
	}
	if !strings.Contains(errs, "the workbook shows opaque IDs") {
		t.Errorf("pull by link does not say the IDs are opaque: %s", errs)
	}
	linkRecs, _ := os.ReadFile(byLink)
	goldtest.ValidateRecords(t, linkRecs)
	shown := map[string]string{}
	for o, real := range m.OpaqueIDs {
		shown[real] = o
	}
	for i, r := range readRecords(t, string(linkRecs)) {
		if r.Source.Kind != "gsheets" || r.Source.File != sp.ID || r.Annotator != "ann1" || r.Status != records.StatusComplete {
			t.Errorf("record %s: source %+v, annotator %q, status %s", r.Unit, r.Source, r.Annotator, r.Status)
		}
		if want := shown[recs[i].ID]; r.Unit != want || !r.OpaqueIDs {
			t.Errorf("record %d by link: unit %s (opaque %v), want %s", i, r.Unit, r.OpaqueIDs, want)
		}
	}
	// By bare ID, the same records; by the manifest's folder, the same
	// with their real IDs.
	code, stdout, errs := runCLI(t, "pull", sp.ID, "--endpoint", endpoint, "--no-auth")
	if code != 0 || stdout != string(linkRecs) {
		t.Errorf("pull %s: exit %d: %s\n%s", sp.ID, code, errs, stdout)
	}
	code, stdout, errs = runCLI(t, "pull", dir, "--endpoint", endpoint, "--no-auth")
	if code != 0 || strings.Contains(errs, "opaque") {
		t.Errorf("pull %s: exit %d: %s", dir, code, errs)
	}
	for i, r := range readRecords(t, stdout) {
		if r.Unit != recs[i].ID || r.Item != recs[i].ID || r.OpaqueIDs {
			t.Errorf("record %d through the manifest: unit %s, item %s (opaque %v), want %s", i, r.Unit, r.Item, r.OpaqueIDs, recs[i].ID)
		}
	}
	// The manifest's spreadsheet is on the fake: pulling it from Google
	// would be a mistake, and is refused.
	if code, _, errs := runCLI(t, "pull", dir, "--no-auth"); code != exitUsage || !strings.Contains(errs, "give --endpoint "+endpoint) {
		t.Errorf("pull without --endpoint: exit %d: %s", code, errs)
	}

	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	if code, _, errs := runCLI(t, "export", byLink, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", labels); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(labels)
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	for i, r := range recs {
		var l struct {
			ID     string `json:"id"`
			Labels []int  `json:"labels"`
		}
		json.Unmarshal([]byte(lines[i]), &l)
		if l.ID != r.ID || !equalInts(l.Labels, r.GoldLabels) {
			t.Errorf("exported %s %v, gold %s %v", l.ID, l.Labels, r.ID, r.GoldLabels)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGSheetsResume fails a generate half-way and runs it again: the same
// spreadsheet is finished, none is made twice; --force rewrites it in
// place.
func TestGSheetsResume(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	args := []string{"generate", "-t", "qa-span-errors", "-i", qaData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth", "--seed", "3"}
	// Google refuses the cells for good (a 403 is not tried again).
	fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 403, Times: 2})
	code, _, errs := runCLI(t, args...)
	if code != exitFailure {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := readManifest(t, dir)
	sp := m.Batches[0].Spreadsheet
	if sp == nil || sp.Status != manifest.Incomplete {
		t.Fatalf("manifest after the failure: %+v", m.Batches[0])
	}
	if !strings.Contains(errs, "created "+sp.URL) || !strings.Contains(errs, sp.URL+" is not finished") || !strings.Contains(errs, "run the same command again") || !strings.Contains(errs, "waiting will not help") {
		t.Errorf("the failure does not say what was made and what to do:\n%s", errs)
	}
	// The second run also meets a refusal; the third finishes.
	if code, _, errs := runCLI(t, args...); code != exitFailure || !strings.Contains(errs, "finishing "+sp.URL) {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, args...)
	if code != 0 || !strings.Contains(errs, "finishing "+sp.URL) || !strings.Contains(out, "wrote "+sp.URL) {
		t.Fatalf("third run: exit %d: %s\n%s", code, errs, out)
	}
	if n := len(fake.Spreadsheets()); n != 1 {
		t.Errorf("%d spreadsheets made, want 1", n)
	}
	m2 := readManifest(t, dir)
	if m2.Batches[0].Spreadsheet.Status != manifest.Complete || m2.Study != m.Study || m2.Seed != m.Seed {
		t.Errorf("finished manifest: %+v (study %s→%s)", m2.Batches[0].Spreadsheet, m.Study, m2.Study)
	}
	// Finished: a new run needs --force, and then rewrites in place.
	if code, _, errs := runCLI(t, args...); code != exitFailure || !strings.Contains(errs, "the one spreadsheet of this study is made (use another --out, or --force to replace it)") {
		t.Errorf("run over a finished batch: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, append(args, "--force")...); code != 0 || !strings.Contains(errs, "rewriting "+sp.URL) {
		t.Errorf("--force: exit %d: %s", code, errs)
	}
	if n := len(fake.Spreadsheets()); n != 1 {
		t.Errorf("%d spreadsheets after --force, want 1", n)
	}
	// Once annotators have answered, --force alone does not wipe it.
	recs, err := goldtest.ReadQA(qaData)
	if err != nil {
		t.Fatal(err)
	}
	tp, _ := templates.Builtin("qa-span-errors")
	fillAsAnnotator(t, endpoint, sp.ID, func(w *goldtest.Workbook) error { return goldtest.FillQA(w, tp, recs[:3], "ann") })
	before := readManifest(t, dir)
	code, _, errs = runCLI(t, append(args, "--force")...)
	if code != exitFailure || !strings.Contains(errs, "holds answers for 3 units (pull them first, then add --discard-answers") {
		t.Errorf("--force over answers: exit %d: %s", code, errs)
	}
	if after := readManifest(t, dir); after.Study != before.Study {
		t.Error("the refused --force changed the manifest")
	}
	if code, _, errs := runCLI(t, append(args, "--force", "--discard-answers")...); code != 0 {
		t.Errorf("--force --discard-answers: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "pull", dir, "--endpoint", endpoint, "--no-auth")
	if code != 0 || len(readRecords(t, stdout)) != 40 {
		t.Errorf("pull: exit %d: %s", code, errs)
	}
}

// TestGSheetsMissing: a spreadsheet the manifest lists but that is gone
// gives missing records, not a failed pull.
func TestGSheetsMissing(t *testing.T) {
	googletest.NoAccount(t)
	_, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth"); code != 0 {
		t.Fatal(errs)
	}
	m := readManifest(t, dir)
	ctx := context.Background()
	c, _ := sheets.New(ctx, sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err := c.Drive.Files.Delete(m.Batches[0].Spreadsheet.ID).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runCLI(t, "pull", dir, "--endpoint", endpoint, "--no-auth")
	if code != 0 || !strings.Contains(errs, "5 missing") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, r := range readRecords(t, stdout) {
		if r.Status != records.StatusMissing || r.Source.Kind != "gsheets" {
			t.Errorf("%s: %s %+v", r.Unit, r.Status, r.Source)
		}
	}
	// A link to a spreadsheet that is not there is an error that says why.
	if code, _, errs := runCLI(t, "pull", m.Batches[0].Spreadsheet.URL, "--endpoint", endpoint, "--no-auth"); code != exitFailure || !strings.Contains(errs, "not found") || !strings.Contains(errs, "drive.file") {
		t.Errorf("pull of a deleted spreadsheet: exit %d: %s", code, errs)
	}
}

// TestAuthCommands signs in through the CLI with a simulated browser,
// works as the signed-in user, and signs out.
func TestAuthCommands(t *testing.T) {
	home := googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{RequireAuth: true})
	secret := googletest.ClientSecret(t, fake)

	if code, _, errs := runCLI(t, "auth", "status"); code != exitFailure || !strings.Contains(errs, "not signed in to Google") {
		t.Errorf("status before login: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "auth", "login"); code != exitUsage || !strings.Contains(errs, "--client-secret") {
		t.Errorf("login without a client: exit %d: %s", code, errs)
	}

	var stderr syncbuf.Buffer
	var stdout bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"annosheet", "auth", "login", "--client-secret", secret, "--no-browser", "--timeout", "20s"}, strings.NewReader(""), &stdout, &stderr)
	}()
	// The user opens the printed link; the browser follows Google's
	// redirect to annosheet's loopback listener.
	link := ""
	for deadline := time.Now().Add(10 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		link = regexp.MustCompile(`http://127\.0\.0\.1:\d+/auth\?\S+`).FindString(stderr.String())
	}
	if link == "" {
		t.Fatalf("no sign-in link printed: %s", stderr.String())
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code := <-done; code != 0 {
		t.Fatalf("login: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(string(page), "signed in") {
		t.Errorf("browser page: %s", page)
	}
	tokenFile := filepath.Join(home, "token.json")
	if st, err := os.Stat(tokenFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	if !strings.Contains(stdout.String(), tokenFile) {
		t.Errorf("login output: %s", stdout.String())
	}
	raw, _ := os.ReadFile(tokenFile)
	var cache struct {
		Token struct {
			Access, Refresh string
		}
	}
	json.Unmarshal(raw, &cache)
	if strings.Contains(stderr.String(), "ya29.") || strings.Contains(stdout.String(), "ya29.") {
		t.Error("a token was printed")
	}

	code, out, errs := runCLI(t, "auth", "status", "--endpoint", endpoint)
	if code != 0 || !strings.Contains(out, "Google accepts it") || !strings.Contains(out, "signed in as "+sheetsfake.FakeUser) {
		t.Errorf("status: exit %d: %s %s", code, out, errs)
	}
	// Another OAuth server's sign-in does not silently replace this one.
	other, _ := startFake(t, sheetsfake.Options{})
	otherSecret := googletest.ClientSecret(t, other)
	if code, _, errs := runCLI(t, "auth", "login", "--client-secret", otherSecret, "--no-browser"); code != exitFailure || !strings.Contains(errs, "run 'annosheet auth logout' first") {
		t.Errorf("login over another sign-in: exit %d: %s", code, errs)
	}
	dir := t.TempDir()
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint); code != 0 {
		t.Fatalf("generate as the signed-in user: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "pull", dir, "--endpoint", endpoint); code != 0 {
		t.Fatalf("pull as the signed-in user: exit %d: %s", code, errs)
	}

	// The user removes annosheet's access in their Google account: the
	// next run says so and what to do.
	fake.RevokeAll()
	fake.ExpireTokens()
	if code, _, errs := runCLI(t, "pull", dir, "--endpoint", endpoint); code != exitFailure || !strings.Contains(errs, "expired or was revoked: run 'annosheet auth login' again") {
		t.Errorf("pull after revocation: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "auth", "status"); code != exitFailure || !strings.Contains(errs, "expired or was revoked") {
		t.Errorf("status after revocation: exit %d: %s", code, errs)
	}
	code, out, errs = runCLI(t, "auth", "logout")
	if code != 0 || !strings.Contains(out, "signed out") {
		t.Errorf("logout: exit %d: %s %s", code, out, errs)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file still there: %v", err)
	}
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", t.TempDir(), "--format", "gsheets", "--endpoint", endpoint); code != exitFailure || !strings.Contains(errs, "not signed in to Google (run 'annosheet auth login") {
		t.Errorf("generate signed out: exit %d: %s", code, errs)
	}
}

// TestAuthLogoutRevokes checks that logout revokes the grant at Google.
func TestAuthLogoutRevokes(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{RequireAuth: true})
	cfgSecret := googletest.ClientSecret(t, fake)
	var stderr syncbuf.Buffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"annosheet", "auth", "login", "--client-secret", cfgSecret, "--no-browser"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	link := ""
	for deadline := time.Now().Add(10 * time.Second); link == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		link = regexp.MustCompile(`http://127\.0\.0\.1:\d+/auth\?\S+`).FindString(stderr.String())
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := <-done; code != 0 {
		t.Fatal(stderr.String())
	}
	path := filepath.Join(os.Getenv("ANNOSHEET_CONFIG_DIR"), "token.json")
	saved, _ := os.ReadFile(path)
	if code, _, errs := runCLI(t, "auth", "logout"); code != 0 {
		t.Fatal(errs)
	}
	// Put the old token back: Google no longer honours it.
	os.WriteFile(path, saved, 0o600)
	fake.ExpireTokens()
	if code, _, errs := runCLI(t, "pull", "fake0000000000000000000000000000000000000009", "--endpoint", endpoint); code != exitFailure || !strings.Contains(errs, "revoked") {
		t.Errorf("the revoked token still works: exit %d: %s", code, errs)
	}
}

func TestGSheetsServiceAccount(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{RequireAuth: true})
	const email = "study@lab.iam.gserviceaccount.com"
	keyFile := filepath.Join(t.TempDir(), "key.json")
	if err := fake.WriteServiceAccountKey(keyFile, email); err != nil {
		t.Fatal(err)
	}
	t.Setenv(sheets.EnvServiceAccount, keyFile)

	if code, out, _ := runCLI(t, "auth", "status"); code != 0 || !strings.Contains(out, "service account "+email) {
		t.Errorf("status: exit %d: %s", code, out)
	}
	args := []string{"generate", "-t", "legal-gaps", "-i", legalData, "--format", "gsheets", "--endpoint", endpoint}
	code, _, errs := runCLI(t, append(args, "-o", t.TempDir())...)
	if code != exitFailure || !strings.Contains(errs, "service account cannot own new spreadsheets (give --folder") {
		t.Errorf("no folder: exit %d: %s", code, errs)
	}
	shared := fake.AddFolder("Lab shared drive", true, email)
	dir := t.TempDir()
	if code, _, errs := runCLI(t, append(args, "-o", dir, "--folder", shared, "--share", "ann@example.org")...); code != 0 {
		t.Fatalf("shared-drive folder: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "pull", dir, "--endpoint", endpoint); code != 0 {
		t.Errorf("pull: exit %d: %s", code, errs)
	}
	os.WriteFile(keyFile, []byte(`{"type":"authorized_user"}`), 0o600)
	if code, _, errs := runCLI(t, "auth", "status"); code != exitFailure || !strings.Contains(errs, "not a service account key") {
		t.Errorf("status with a bad key: exit %d: %s", code, errs)
	}
}

// TestGSheetsEndpoints: each spreadsheet is read and finished where it
// lives; credentials go to Google or to this machine only.
func TestGSheetsEndpoints(t *testing.T) {
	googletest.NoAccount(t)
	_, endpoint := startFake(t, sheetsfake.Options{})
	_, other := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	gen := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--no-auth"}
	if code, _, errs := runCLI(t, append(gen, "--endpoint", endpoint)...); code != 0 {
		t.Fatal(errs)
	}
	// A dry run's spreadsheet is pulled from its fake, and only from it.
	if code, _, errs := runCLI(t, "pull", dir, "--endpoint", other, "--no-auth"); code != exitUsage || !strings.Contains(errs, "is on "+endpoint+" (a dry run): give --endpoint "+endpoint+" --no-auth") {
		t.Errorf("pull from another fake: exit %d: %s", code, errs)
	}
	// One made on Google is not looked for on a fake (every unit would
	// look missing).
	m := readManifest(t, dir)
	m.Batches[0].Spreadsheet.Endpoint = ""
	if err := atomicWrite(filepath.Join(dir, manifest.FileName), m); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "pull", dir, "--endpoint", endpoint, "--no-auth"); code != exitUsage || !strings.Contains(errs, "is on Google: leave out --endpoint") {
		t.Errorf("pull of a Google batch from a fake: exit %d: %s", code, errs)
	}
	// An unfinished spreadsheet is finished where it is, not elsewhere.
	m.Batches[0].Spreadsheet.Endpoint = endpoint
	m.Batches[0].Spreadsheet.Status = manifest.Incomplete
	atomicWrite(filepath.Join(dir, manifest.FileName), m)
	if code, _, errs := runCLI(t, append(gen, "--endpoint", other)...); code != exitFailure || !strings.Contains(errs, "is on "+endpoint+", not on "+other) {
		t.Errorf("resume elsewhere: exit %d: %s", code, errs)
	}
	// Credentials never go to a server that is neither Google nor local.
	if code, _, errs := runCLI(t, "pull", "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "--endpoint", "https://sheets.example.org"); code != exitUsage || !strings.Contains(errs, "sends your Google credentials to Google") {
		t.Errorf("foreign endpoint: exit %d: %s", code, errs)
	}
	// The endpoint in the environment does not trouble XLSX runs.
	t.Setenv(envEndpoint, endpoint)
	if code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", t.TempDir()); code != 0 {
		t.Errorf("xlsx with %s set: exit %d: %s", envEndpoint, code, errs)
	}
}

// atomicWrite saves an edited manifest.
func atomicWrite(path string, m *manifest.Manifest) error {
	var b bytes.Buffer
	if err := m.Encode(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func TestGSheetsDamagedManifest(t *testing.T) {
	googletest.NoAccount(t)
	_, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(`{"schema":"old"}`), 0o644)
	args := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth"}
	if code, _, errs := runCLI(t, args...); code != exitFailure || !strings.Contains(errs, "not an annosheet manifest") || !strings.Contains(errs, "use another --out, or --force to replace it") {
		t.Errorf("damaged manifest: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, append(args, "--force")...); code != 0 || !strings.Contains(errs, "not an annosheet manifest (schema \"old\", want \"annosheet.manifest/1\"); it is replaced") {
		t.Errorf("damaged manifest, --force: exit %d: %s", code, errs)
	}
}

func TestGSheetsUsage(t *testing.T) {
	googletest.NoAccount(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--share", "a@b.org"}, "--share is for --format gsheets"},
		{[]string{"--format", "gsheets", "--no-auth"}, "calls without signing in go only to a loopback endpoint (a fake of the Sheets API), not to Google (--no-auth needs a loopback --endpoint; see --help)"},
		{[]string{"--format", "gsheets", "--no-auth", "--endpoint", "https://sheets.googleapis.com"}, "not to https://sheets.googleapis.com (--no-auth needs a loopback --endpoint; see --help)"},
		{[]string{"--format", "gsheets", "--protect", "nobody"}, "--protect \"nobody\""},
		{[]string{"--format", "gsheets", "--share", "annotator"}, "not an email address"},
		{[]string{"--format", "gsheets", "--message", "hi"}, "give --share, or annotators' email addresses"},
		{[]string{"--format", "gsheets", "--endpoint", "https://sheets.example.org"}, "sends your Google credentials to Google"},
		{[]string{"--format", "gsheets", "--endpoint", "http://sheets.googleapis.com.example.org"}, "sends your Google credentials to Google"},
	} {
		// A refusal leaves nothing behind: no manifest of a study that
		// was never made.
		out := filepath.Join(t.TempDir(), "study")
		args := append([]string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", out}, tc.args...)
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d: %s, want %q", tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the refused run left %s (%v)", tc.args, out, err)
		}
	}
	// Not signed in: refused before anything is written, for generate and
	// for adjudicate alike.
	for _, args := range [][]string{
		{"generate", "-t", "legal-gaps", "-i", legalData, "--format", "gsheets"},
		{"adjudicate", legalRecords(t, t.TempDir(), "r.jsonl", "u1 ann1 1", "u1 ann2 2"), "--format", "gsheets"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, errs := runCLI(t, append(args, "-o", out)...)
		if code == 0 || !strings.Contains(errs, "auth login") {
			t.Errorf("%s without a sign-in: exit %d: %s", args[0], code, errs)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s without a sign-in left %s (%v)", args[0], out, err)
		}
	}
	if code, _, errs := runCLI(t, "pull", "legal-gaps-b01"); code != exitFailure || !strings.Contains(errs, "not a file, a folder, or a spreadsheet link") {
		t.Errorf("pull of a name that is neither: exit %d: %s", code, errs)
	}
}

// TestAgainstFakesheetsCommand runs the loop against the fakesheets
// command itself, as a user's dry run does.
func TestAgainstFakesheetsCommand(t *testing.T) {
	googletest.NoAccount(t)
	bin := filepath.Join(t.TempDir(), "fakesheets")
	build := exec.Command("go", "build", "-o", bin, "../fakesheets")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fakesheets: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-shared-folder", "Study")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	var endpoint, folder string
	for sc.Scan() && (endpoint == "" || folder == "") {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "fakesheets listening on "); ok {
			endpoint = u
		}
		if _, id, ok := strings.Cut(line, `"Study": `); ok {
			folder = id
		}
	}
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || folder == "" {
		t.Fatalf("fakesheets said endpoint %q, folder %q", endpoint, folder)
	}
	go io.Copy(io.Discard, stdout)
	dir := t.TempDir()
	code, out, errs := runCLI(t, "generate", "-t", "preference-likert", "-i", prefData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth", "--folder", folder)
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	m := readManifest(t, dir)
	fillAsAnnotator(t, endpoint, m.Batches[0].Spreadsheet.ID, func(w *goldtest.Workbook) error { return goldtest.FillPreference(w, w.Units, "1") })
	code, stdout2, errs := runCLI(t, "pull", m.Batches[0].Spreadsheet.URL, "--endpoint", endpoint, "--no-auth")
	if code != 0 || !strings.Contains(errs, "10 complete") {
		t.Fatalf("pull: exit %d: %s\n%s", code, errs, out)
	}
	ann := filepath.Join(t.TempDir(), "ann.jsonl")
	os.WriteFile(ann, []byte(stdout2), 0o644)
	exported := filepath.Join(t.TempDir(), "completed.json")
	if code, _, errs := runCLI(t, "export", ann, "--native", "--manifest", filepath.Join(dir, "manifest.json"), "--out", exported); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	var completed map[string]map[string]any
	b, _ := os.ReadFile(exported)
	if err := json.Unmarshal(b, &completed); err != nil || len(completed) != 10 {
		t.Fatalf("completed file: %v, %d topics", err, len(completed))
	}
	for topic, v := range completed {
		if v["first_prediction_likert"] == float64(0) || v["best_prediction_topic"] == nil {
			t.Errorf("topic %s not filled: %v", topic, v)
		}
	}
}

// TestGSheetsStudy: a spreadsheet per annotator, shared with each; a run
// that stops after the first spreadsheet is finished by running it again,
// the first kept; status reads the live spreadsheets.
func TestGSheetsStudy(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	args := []string{"generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth",
		"--annotators", "ann1@example.org,ann2@example.org", "--overlap", "2", "--seed", "1", "--message", "Your batch"}
	// The second spreadsheet's sheets are refused, for good.
	fake.Inject(sheetsfake.Fault{Match: "POST /drive/v3/files", Status: 0, Times: 1}, sheetsfake.Fault{Match: ":batchUpdate", Status: 0, Times: 3})
	fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 403})
	code, _, errs := runCLI(t, args...)
	if code != exitFailure {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	// Half made: the batch whose spreadsheet is not finished still counts
	// its units, as missing.
	code, out, errs := runCLI(t, "status", dir, "--endpoint", endpoint, "--no-auth", "--json")
	var half study.Status
	if err := json.Unmarshal([]byte(out), &half); code != 0 || err != nil || half.Total.Units != 10 || half.Total.Missing != 5 {
		t.Errorf("status of a half-made study: exit %d, %+v: %s", code, half.Total, errs)
	}
	code, out, errs = runCLI(t, args...)
	if code != 0 || !strings.Contains(errs, "kept ") || !strings.Contains(errs, "finishing ") {
		t.Fatalf("second run: exit %d: %s\n%s", code, errs, out)
	}
	ids := fake.Spreadsheets()
	if len(ids) != 2 {
		t.Fatalf("%d spreadsheets, want 2", len(ids))
	}
	m := readManifest(t, dir)
	for _, b := range m.Batches {
		sp := b.Spreadsheet
		if sp == nil || sp.Status != manifest.Complete {
			t.Fatalf("batch %+v", b)
		}
		_, shares, mails, _ := fake.FileInfo(sp.ID)
		if len(shares) != 1 || shares[0].Email != b.Annotator || mails[0].Message != "Your batch" {
			t.Errorf("batch %s shared with %v (%v)", b.ID, shares, mails)
		}
	}
	// The annotator column is filled in and protected like the context;
	// the answer columns are open.
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Batches {
		w, err := goldtest.OpenSpreadsheet(context.Background(), c.Sheets, b.Spreadsheet.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Sheets.Spreadsheets.Get(b.Spreadsheet.ID).IncludeGridData(true).Do()
		if err != nil {
			t.Fatal(err)
		}
		var annotate *sheetsapi.Sheet
		for _, sh := range got.Sheets {
			if sh.Properties.Title == backend.SheetAnnotate {
				annotate = sh
			}
		}
		row, ann, gap := w.Rows[w.Units[0]][0], w.Col["annotator"], w.Col["q:gaps=1"]
		if v := annotate.Data[0].RowData[row-1].Values[ann].UserEnteredValue; v == nil || v.StringValue == nil || *v.StringValue != b.Annotator {
			t.Errorf("%s: the annotator cell holds %+v", b.ID, v)
		}
		open := func(col int) bool {
			for _, pr := range annotate.ProtectedRanges {
				for _, u := range pr.UnprotectedRanges {
					if u.StartColumnIndex <= int64(col) && int64(col) < u.EndColumnIndex && u.StartRowIndex < int64(row) && int64(row) <= u.EndRowIndex {
						return true
					}
				}
			}
			return len(annotate.ProtectedRanges) == 0
		}
		if open(ann) || !open(gap) {
			t.Errorf("%s: annotator column open %v, answer column open %v", b.ID, open(ann), open(gap))
		}
	}
	fillAsAnnotator(t, endpoint, m.Batches[0].Spreadsheet.ID, func(w *goldtest.Workbook) error {
		return w.Set(w.Rows[w.Units[0]][0], "q:gaps=1", true)
	})
	code, out, errs = runCLI(t, "status", dir, "--endpoint", endpoint, "--no-auth", "--json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errs)
	}
	var rep study.Status
	json.Unmarshal([]byte(out), &rep)
	if rep.Total.Units != 10 || rep.Total.Complete != 1 || len(rep.Annotators) != 2 {
		t.Errorf("status %+v", rep.Total)
	}
}

// TestGSheetsNeverMade: a run that fails on its first spreadsheet leaves
// a manifest whose other batches were never made; status and pull still
// count their units, as missing.
func TestGSheetsNeverMade(t *testing.T) {
	googletest.NoAccount(t)
	fake, endpoint := startFake(t, sheetsfake.Options{})
	dir := t.TempDir()
	fake.Inject(sheetsfake.Fault{Match: ":batchUpdate", Status: 403})
	code, _, errs := runCLI(t, "generate", "-t", "legal-gaps", "-i", legalData, "-o", dir, "--format", "gsheets", "--endpoint", endpoint, "--no-auth",
		"--annotators", "ak,bt", "--overlap", "2", "--seed", "1")
	if code != exitFailure {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := readManifest(t, dir)
	if len(m.Batches) != 2 || m.Batches[1].Spreadsheet != nil {
		t.Fatalf("batches %+v", m.Batches)
	}
	code, out, errs := runCLI(t, "pull", dir, "--endpoint", endpoint, "--no-auth")
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	recs := readRecords(t, out)
	if len(recs) != 10 || !strings.Contains(errs, "the workbook of batch bt-b01 was never made (generate did not finish); its 5 units are reported missing") {
		t.Errorf("%d records: %s", len(recs), errs)
	}
	for _, r := range recs {
		if r.Status != records.StatusMissing || r.Annotator == "" {
			t.Errorf("%s/%s by %q: %s", r.Batch, r.Unit, r.Annotator, r.Status)
		}
	}
}
