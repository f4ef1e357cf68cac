package xlsx_test

import (
	"fmt"

	"github.com/annosheet/annosheet/xlsx"
)

// A folder pull reads the readable files, lists the spreadsheets it cannot
// read with why, and passes over the rest.
func ExampleClassify() {
	for _, name := range []string{"b01-AK.xlsx", "b01-JS.ods", "b01-MR.numbers", "~$b01-AK.xlsx", "notes.txt"} {
		switch k, why := xlsx.Classify(name); {
		case k.Readable():
			fmt.Printf("%s: read (%v)\n", name, k)
		case k == xlsx.Unreadable:
			fmt.Printf("%s: not read: %s\n", name, why)
		}
	}
	// Output:
	// b01-AK.xlsx: read (workbook)
	// b01-JS.ods: read (converted)
	// b01-MR.numbers: not read: an Apple Numbers file: in Numbers choose File > Export To > Excel, and pull the .xlsx
}
