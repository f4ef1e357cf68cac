package sheets_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/annosheet/annosheet/backend"
	"github.com/annosheet/annosheet/decode"
	"github.com/annosheet/annosheet/records"
	"github.com/annosheet/annosheet/sheets"
	"github.com/annosheet/annosheet/testkit/benchdata"
)

// Benchmarks of the Sheets backend on the legal-gaps shape (long context
// cells), against the fakesheets command in its own process, so that the
// memory measured (peak-MB, the Go heap in use) is annosheet's alone and
// not the fake's copy of the spreadsheet.
//
//	go test ./sheets -run '^$' -bench . -benchtime 1x
//
// Each also reports the API calls made and the megabytes sent (write) or
// received (pull). The figures are in the README.

var (
	fakeOnce sync.Once
	fakeURL  string
	fakeErr  error
	fakeCmd  *exec.Cmd
	benchDir string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeCmd != nil {
		fakeCmd.Process.Signal(os.Interrupt)
		fakeCmd.Wait()
	}
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// fakeServer builds and starts the fakesheets command once.
func fakeServer(b *testing.B) string {
	fakeOnce.Do(func() {
		if benchDir, fakeErr = os.MkdirTemp("", "annosheet-bench"); fakeErr != nil {
			return
		}
		bin := filepath.Join(benchDir, "fakesheets")
		if out, err := exec.Command("go", "build", "-o", bin, "../cmd/fakesheets").CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("build fakesheets: %v\n%s", err, out)
			return
		}
		fakeCmd = exec.Command(bin)
		stdout, err := fakeCmd.StdoutPipe()
		if err != nil {
			fakeErr = err
			return
		}
		if fakeErr = fakeCmd.Start(); fakeErr != nil {
			return
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "fakesheets listening on "); ok {
				fakeURL = u
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		if fakeURL == "" {
			fakeErr = fmt.Errorf("fakesheets gave no URL")
		}
	})
	if fakeErr != nil {
		b.Fatal(fakeErr)
	}
	return fakeURL
}

// filledPlan is the filled legal-gaps plan of n rows.
func filledPlan(b *testing.B, n int) *backend.Plan {
	p, err := benchdata.FilledLegalPlan(benchDir, n, backend.SheetsCellLimit)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// written holds, per size, a spreadsheet BenchmarkWrite made, for
// BenchmarkPull.
var written sync.Map

func client(b *testing.B, endpoint string) *sheets.Client {
	c, err := sheets.New(context.Background(), sheets.Options{Endpoint: endpoint, NoAuth: true})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkWrite(b *testing.B) {
	endpoint := fakeServer(b)
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			c := client(b, endpoint)
			var w *sheets.Written
			runtime.GC()
			stop := benchdata.PeakHeap()
			b.ResetTimer()
			for range b.N {
				var err error
				if w, err = c.Write(context.Background(), filledPlan(b, rows), sheets.WriteOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
			b.ReportMetric(float64(w.Calls), "calls")
			b.ReportMetric(float64(w.Bytes)/1e6, "sent-MB")
			written.Store(rows, w.ID)
		})
	}
}

func BenchmarkPull(b *testing.B) {
	endpoint := fakeServer(b)
	for _, rows := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			c := client(b, endpoint)
			id, ok := written.Load(rows)
			if !ok {
				w, err := c.Write(context.Background(), filledPlan(b, rows), sheets.WriteOptions{})
				if err != nil {
					b.Fatal(err)
				}
				id = w.ID
			}
			runtime.GC()
			stop := benchdata.PeakHeap()
			b.ResetTimer()
			for range b.N {
				g, closeFn, err := c.Open(context.Background(), id.(string))
				if err != nil {
					b.Fatal(err)
				}
				p, err := decode.Pull(g, decode.PullOptions{})
				closeFn()
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Records) != rows || p.Records[rows-1].Status != records.StatusComplete {
					b.Fatalf("%d records, last %s", len(p.Records), p.Records[len(p.Records)-1].Status)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(stop())/1e6, "peak-MB")
		})
	}
}
