package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/syncbuf"
)

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	secret := filepath.Join(t.TempDir(), "client.json")
	var out syncbuf.Buffer
	var errb bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"-folder", "Mine", "-shared-folder", "Lab", "-client-secret-out", secret, "-require-auth"}, &out, &errb)
	}()
	var base string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "try:") {
			base = m[1]
			break
		}
	}
	if base == "" {
		cancel()
		t.Fatalf("no URL printed: %s %s", out.String(), errb.String())
	}
	for _, want := range []string{`folder "Mine": `, `shared-drive folder "Lab": `} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q: %s", want, out.String())
		}
	}
	var client map[string]map[string]any
	b, err := os.ReadFile(secret)
	if err != nil || json.Unmarshal(b, &client) != nil || client["installed"]["token_uri"] != base+"/token" {
		t.Errorf("client secret file: %v %s", err, b)
	}
	// Auth is required: an API call without a token is refused.
	resp, err := http.Get(base + "/v4/spreadsheets/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unauthenticated call: %s", resp.Status)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("did not stop on cancel")
	}
}

func TestRefusesOtherAddresses(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"-addr", "0.0.0.0:0"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "loopback") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if code := run(context.Background(), []string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}
