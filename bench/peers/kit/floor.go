package main

import (
	"archive/zip"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"time"
)

// floorCmd measures the floor of writing and reading a workbook: the
// time to inflate its Annotate sheet's XML, and to deflate that XML at
// level 6 (the standard library's default, which annosheet uses) and
// level 1 (annosheet's fast choice), with nothing else done. It prints
// one JSON object.
//
// The XML is streamed, never held: deflating is timed as inflate, then
// deflate, less the inflate alone, each the best of three. Each time is
// given as wall time and as the process's CPU time, which other load on
// the machine disturbs less.
func floorCmd(args []string, stdout io.Writer) error {
	fs := flags("floor")
	sheet := fs.String("sheet", "Annotate", "the sheet")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("floor: one workbook is needed")
	}
	zr, err := zip.OpenReader(fs.Arg(0))
	if err != nil {
		return err
	}
	defer zr.Close()
	part, err := sheetPart(&zr.Reader, *sheet)
	if err != nil {
		return err
	}
	type result struct {
		Part       string  `json:"part"`
		Bytes      uint64  `json:"bytes"`
		Compressed uint64  `json:"compressed"`
		InflateS   float64 `json:"inflate_s"`
		InflateCPU float64 `json:"inflate_cpu_s"`
		Deflate6S  float64 `json:"deflate6_s"`
		Deflate6C  float64 `json:"deflate6_cpu_s"`
		Deflate6B  int64   `json:"deflate6_bytes"`
		Deflate1S  float64 `json:"deflate1_s"`
		Deflate1C  float64 `json:"deflate1_cpu_s"`
		Deflate1B  int64   `json:"deflate1_bytes"`
	}
	res := result{Part: part.Name, Bytes: part.UncompressedSize64, Compressed: part.CompressedSize64}
	// pass inflates the part into w, then closes w if it is a closer,
	// and returns the wall and CPU seconds it took.
	pass := func(w io.Writer) (wall, cpu float64, err error) {
		r, err := part.Open()
		if err != nil {
			return 0, 0, err
		}
		defer r.Close()
		start, cpu0 := time.Now(), cpuTime()
		if _, err := io.Copy(w, r); err != nil {
			return 0, 0, err
		}
		if c, ok := w.(io.Closer); ok {
			if err := c.Close(); err != nil {
				return 0, 0, err
			}
		}
		return time.Since(start).Seconds(), (cpuTime() - cpu0).Seconds(), nil
	}
	// best is the least wall and the least CPU time of three passes.
	best := func(w func() io.Writer) (wall, cpu float64, err error) {
		for i := range 3 {
			s, c, err := pass(w())
			if err != nil {
				return 0, 0, err
			}
			if i == 0 || s < wall {
				wall = s
			}
			if i == 0 || c < cpu {
				cpu = c
			}
		}
		return wall, cpu, nil
	}
	if res.InflateS, res.InflateCPU, err = best(func() io.Writer { return io.Discard }); err != nil {
		return err
	}
	deflate := func(level int, size *int64) (wall, cpu float64, err error) {
		c := &counter{}
		wall, cpu, err = best(func() io.Writer {
			c.n = 0
			fw, _ := flate.NewWriter(c, level) // level is valid
			return fw
		})
		*size = c.n
		return wall - res.InflateS, cpu - res.InflateCPU, err
	}
	if res.Deflate6S, res.Deflate6C, err = deflate(6, &res.Deflate6B); err != nil {
		return err
	}
	if res.Deflate1S, res.Deflate1C, err = deflate(flate.BestSpeed, &res.Deflate1B); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var (
	sheetRE  = regexp.MustCompile(`<sheet\s[^>]*>`)
	nameRE   = regexp.MustCompile(`\sname="([^"]*)"`)
	ridRE    = regexp.MustCompile(`\sr:id="([^"]*)"`)
	relRE    = regexp.MustCompile(`<Relationship\s[^>]*>`)
	idRE     = regexp.MustCompile(`\sId="([^"]*)"`)
	targetRE = regexp.MustCompile(`\sTarget="([^"]*)"`)
)

// sheetPart finds the zip entry of the named sheet, through the workbook
// part and its relationships (at their usual places).
func sheetPart(zr *zip.Reader, name string) (*zip.File, error) {
	book, err := readAll(zr, "xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	rels, err := readAll(zr, "xl/_rels/workbook.xml.rels")
	if err != nil {
		return nil, err
	}
	id := ""
	for _, s := range sheetRE.FindAll(book, -1) {
		if m := nameRE.FindSubmatch(s); m != nil && string(m[1]) == name {
			if r := ridRE.FindSubmatch(s); r != nil {
				id = string(r[1])
			}
		}
	}
	for _, r := range relRE.FindAll(rels, -1) {
		if m := idRE.FindSubmatch(r); m != nil && string(m[1]) == id && id != "" {
			t := targetRE.FindSubmatch(r)
			if t == nil {
				break
			}
			target := string(t[1])
			if target[0] == '/' {
				target = target[1:]
			} else {
				target = path.Join("xl", target)
			}
			for _, f := range zr.File {
				if f.Name == target {
					return f, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no sheet %s", name)
}

func readAll(zr *zip.Reader, name string) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name == name {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return io.ReadAll(r)
		}
	}
	return nil, fmt.Errorf("no %s", name)
}
