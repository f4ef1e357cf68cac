package xlsx

import (
	"archive/zip"
	"compress/flate"
	"io"

	"github.com/xuri/excelize/v2"
)

// Compression is the deflate level of the workbook's zip container. The
// final compression is most of the time excelize spends writing a large
// workbook; see the README's performance section for measurements.
type Compression int

// Compression choices.
const (
	// CompressDefault is the level annosheet uses unless told otherwise.
	CompressDefault Compression = iota
	// CompressFast favours speed over size.
	CompressFast
	// CompressSmall favours size over speed (excelize's own default).
	CompressSmall
)

func (c Compression) level() int {
	switch c {
	case CompressSmall:
		return flate.DefaultCompression
	default:
		return flate.BestSpeed
	}
}

func (c Compression) zipWriter() func(io.Writer) excelize.ZipWriter {
	level := c.level()
	return func(w io.Writer) excelize.ZipWriter {
		z := zip.NewWriter(w)
		z.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(out, level)
		})
		return z
	}
}
