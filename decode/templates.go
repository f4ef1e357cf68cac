package decode

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/annosheet/annosheet/templates"
)

// Templates keeps the templates the workbooks of one pull carry, loaded
// once for all the workbooks that carry the same text with the same
// parameters (every workbook of a study does), instead of once a
// workbook. It is safe for concurrent use; the zero value is ready.
type Templates struct {
	mu     sync.Mutex
	loaded map[[sha256.Size]byte]*templates.Template
}

// Of is the template w carries (Workbook.Template), loaded once for every
// workbook that carries its text and parameters, and checked against
// each workbook's own record.
func (c *Templates) Of(w *Workbook) (*templates.Template, error) {
	params, _ := json.Marshal(w.p.meta.Params) // a map's keys in order
	key := sha256.Sum256(append(append(append([]byte{}, w.src...), 0), params...))
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.loaded[key]
	if t == nil {
		var err error
		if t, err = w.load(); err != nil {
			return nil, err // said of this workbook, and not kept
		}
		if c.loaded == nil {
			c.loaded = map[[sha256.Size]byte]*templates.Template{}
		}
		c.loaded[key] = t
	}
	return t, w.carries(t)
}
