// Package xlsx is the XLSX backend: it renders a backend.Plan as an Excel
// workbook with excelize's streaming writer, and reads a filled workbook
// back into a grid for pull.
//
//	res, err := mapping.Build(tmpl, src, mapping.Options{Batch: "b01"})
//	if err != nil {
//		return err
//	}
//	err = xlsx.Write(res.Plan, file, xlsx.WriteOptions{})
//
// It knows nothing about templates: everything it writes is in the plan.
package xlsx
