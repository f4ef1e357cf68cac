package templates

import (
	"strconv"
	"strings"
)

// RoleCheck is the Check column's role: the sheet fills it in with what
// is missing or wrong in each row (the live checks, see LiveChecks).
// Pull never reads it.
const RoleCheck = "check"

// CheckHeader is the Check column's header, unless another column has
// it; then the first of checkHeaders that no column has.
const CheckHeader = "Check"

var checkHeaders = []string{CheckHeader, "Live check", "Sheet check"}

// CheckWidth is the Check column's width, in characters.
const CheckWidth = 32

// checkColumn is the Check column, with a header that no other column
// has: pull finds columns by header.
func (t *Template) checkColumn(cols []ColumnSpec) ColumnSpec {
	taken := map[string]bool{strings.ToLower(UnitHeader): true}
	for _, c := range cols {
		taken[strings.ToLower(strings.Join(strings.Fields(c.Header), " "))] = true
	}
	header := checkHeaders[0]
	for i := 1; taken[strings.ToLower(header)]; i++ {
		header = CheckHeader + " " + strconv.Itoa(i-len(checkHeaders)+2)
		if i < len(checkHeaders) {
			header = checkHeaders[i]
		}
	}
	return ColumnSpec{Key: RoleCheck, Header: header, Role: RoleCheck, Width: CheckWidth}
}
