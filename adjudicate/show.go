package adjudicate

import (
	"fmt"

	"github.com/annosheet/annosheet/templates"
)

// notAsked is what the sheets show for an annotator with no complete
// record of the unit.
const notAsked = "—"

// where says where a cluster is, for the Where column.
func where(t *templates.Template, c *Cluster) string {
	if c.Start < 0 {
		label := c.Code
		if q := t.QuestionByName(t.Rows.Label); q != nil {
			if o := q.Option(c.Code); o != nil {
				label = o.Label
			}
		}
		if label == "" {
			return "rows without a span"
		}
		return "rows without a span: " + label
	}
	h := c.Field
	if cx := t.ContextByName(c.Field); cx != nil {
		h = cx.Header
	}
	return fmt.Sprintf("%s, characters %d–%d", h, c.Start, c.End)
}
