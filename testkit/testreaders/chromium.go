package testreaders

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/annosheet/annosheet/testkit/syncbuf"
)

// Chromium returns a Chromium (or Chrome) binary, for opening HTML pages
// headless.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "Chromium", "apt-get install chromium")
	return ""
}

// BrowseOptions say how to open a page and what to keep of it.
type BrowseOptions struct {
	// Width and Height are the window's, in CSS pixels (1366×900 when 0).
	Width, Height int
	// Screenshot, when set, is where the window's picture is saved (PNG);
	// FullPage where the whole page's is.
	Screenshot, FullPage string
	// PDF, when set, is where the page printed to PDF is saved.
	PDF string
	// Eval are JavaScript expressions evaluated in the page once it has
	// loaded; their values (as JSON) are in Page.Eval, in order.
	Eval []string
}

// Page is what the browser saw while it opened a page.
type Page struct {
	// Errors are the console's errors and warnings, uncaught exceptions
	// and the browser's own error log entries (a blocked resource, a
	// Content-Security-Policy violation).
	Errors []string
	// Dialogs are the messages of alert, confirm and prompt dialogs the
	// page opened.
	Dialogs []string
	// Requests are the URLs the page asked for, other than its own.
	Requests []string
	// Eval holds the values of BrowseOptions.Eval, as JSON.
	Eval []json.RawMessage
}

// Browse opens a local HTML file in headless Chromium with no network
// (every host name resolves to nothing, and no proxy answers), waits
// until it has loaded, and reports what it saw. It talks to the browser
// over the DevTools protocol on a pipe (--remote-debugging-pipe), with
// the standard library alone.
func Browse(t testing.TB, chromium, file string, opt BrowseOptions) *Page {
	t.Helper()
	if opt.Width == 0 {
		opt.Width, opt.Height = 1366, 900
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := launch(ctx, chromium, t.TempDir())
	if err != nil {
		t.Fatalf("Chromium: %v", err)
	}
	defer b.close()
	page, err := b.browse(ctx, pageURL, opt)
	if err != nil {
		t.Fatalf("Chromium, %s: %v\n%s", file, err, b.stderr())
	}
	return page
}

// browser is a running Chromium and its DevTools pipe.
type browser struct {
	cmd    *exec.Cmd
	in     io.WriteCloser // commands, to the browser's fd 3
	errBuf *syncbuf.Buffer

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	events  chan event
	done    chan struct{}
}

type reply struct {
	Result json.RawMessage
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

type event struct {
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

func (b *browser) stderr() string { return b.errBuf.String() }

// launch starts Chromium headless, offline, with a profile of its own.
func launch(ctx context.Context, chromium, profile string) (*browser, error) {
	cmdR, cmdW, err := os.Pipe() // commands: we write, the browser reads fd 3
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe() // replies and events: the browser writes fd 4
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, chromium,
		"--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
		"--user-data-dir="+profile, "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
		// Offline: no name resolves, and a proxy nobody answers on.
		"--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
		"about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	buf := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cmdR.Close()
	outW.Close()
	b := &browser{cmd: cmd, in: cmdW, errBuf: buf, waiting: map[int]chan reply{}, events: make(chan event, 1024), done: make(chan struct{})}
	go b.read(outR)
	return b, nil
}

// read dispatches the browser's messages (each ends with a NUL byte):
// replies to whoever waits for them, events to the events channel.
func (b *browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		msg = msg[:len(msg)-1]
		var m struct {
			ID int `json:"id"`
			reply
			event
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m.reply
			}
			continue
		}
		select {
		case b.events <- m.event:
		default: // nobody reads that many events; drop the rest
		}
	}
}

// call sends a command (to a page's session when session is set) and
// waits for its reply.
func (b *browser) call(ctx context.Context, session, method string, params any, result any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: the browser closed", method)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// browse opens the page in a new tab and watches it.
func (b *browser) browse(ctx context.Context, pageURL string, opt BrowseOptions) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	s := attached.SessionID
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		if err := b.call(ctx, s, domain+".enable", nil, nil); err != nil {
			return nil, err
		}
	}
	if err := b.call(ctx, s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": opt.Width, "height": opt.Height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	page := &Page{}
	var mu sync.Mutex
	loaded := make(chan struct{})
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		once := sync.Once{}
		for {
			select {
			case <-stop:
				return
			case e := <-b.events:
				if e.SessionID != s {
					continue
				}
				mu.Lock()
				b.note(ctx, s, e, page, pageURL)
				mu.Unlock()
				if e.Method == "Page.loadEventFired" {
					once.Do(func() { close(loaded) })
				}
			}
		}
	}()
	if err := b.call(ctx, s, "Page.navigate", map[string]any{"url": pageURL}, nil); err != nil {
		return nil, err
	}
	select {
	case <-loaded:
	case <-ctx.Done():
		return nil, errors.New("the page did not load")
	}
	// Late requests and errors (a lazy image, a timer) get a moment.
	time.Sleep(500 * time.Millisecond)
	for _, expr := range opt.Eval {
		var res struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
			ExceptionDetails *struct {
				Text string `json:"text"`
			} `json:"exceptionDetails"`
		}
		if err := b.call(ctx, s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
			return nil, err
		}
		if res.ExceptionDetails != nil {
			return nil, fmt.Errorf("evaluate %q: %s", expr, res.ExceptionDetails.Text)
		}
		page.Eval = append(page.Eval, res.Result.Value)
	}
	if opt.Screenshot != "" {
		if err := b.save(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png"}, opt.Screenshot); err != nil {
			return nil, err
		}
	}
	if opt.FullPage != "" {
		var m struct {
			CSSContentSize struct {
				Width, Height float64
			} `json:"cssContentSize"`
		}
		if err := b.call(ctx, s, "Page.getLayoutMetrics", nil, &m); err != nil {
			return nil, err
		}
		clip := map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}
		if err := b.save(ctx, s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, opt.FullPage); err != nil {
			return nil, err
		}
	}
	if opt.PDF != "" {
		if err := b.save(ctx, s, "Page.printToPDF", map[string]any{"printBackground": true, "preferCSSPageSize": true}, opt.PDF); err != nil {
			return nil, err
		}
	}
	close(stop)
	<-watched
	mu.Lock()
	defer mu.Unlock()
	return page, nil
}

// save writes the base64 data a command returns (a screenshot, a PDF).
func (b *browser) save(ctx context.Context, session, method string, params map[string]any, path string) error {
	var res struct {
		Data string `json:"data"`
	}
	if err := b.call(ctx, session, method, params, &res); err != nil {
		return err
	}
	data, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return os.WriteFile(path, data, 0o644)
}

// note records what an event of the page says.
func (b *browser) note(ctx context.Context, session string, e event, page *Page, pageURL string) {
	switch e.Method {
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(e.Params, &p) == nil && p.Request.URL != pageURL {
			page.Requests = append(page.Requests, p.Request.URL)
		}
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(e.Params, &p) == nil && (p.Type == "error" || p.Type == "warning" || p.Type == "assert") {
			var parts []string
			for _, a := range p.Args {
				if a.Value != nil {
					parts = append(parts, fmt.Sprint(a.Value))
				} else {
					parts = append(parts, a.Description)
				}
			}
			page.Errors = append(page.Errors, "console."+p.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		page.Errors = append(page.Errors, "exception: "+string(e.Params))
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(e.Params, &p) == nil && (p.Entry.Level == "error" || p.Entry.Level == "warning") {
			page.Errors = append(page.Errors, "log: "+p.Entry.Text+" "+p.Entry.URL)
		}
	case "Page.javascriptDialogOpening":
		var p struct {
			Message string `json:"message"`
		}
		json.Unmarshal(e.Params, &p)
		page.Dialogs = append(page.Dialogs, p.Message)
		// Dismissed from another goroutine: this one must go on reading
		// events while the browser answers.
		go b.call(ctx, session, "Page.handleJavaScriptDialog", map[string]any{"accept": false}, nil)
	}
}

// close ends the browser: politely, then by force.
func (b *browser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.in.Close()
	exited := make(chan struct{})
	go func() { b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
}
