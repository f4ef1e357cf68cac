// Package study is what a study is, above any one workbook: the batches a
// manifest lists, the workbooks and returned copies found for them, and
// the records that come out when every batch is pulled and every copy is
// merged, missing units included.
//
// It reaches workbooks only through the small interfaces of Backends, so
// the same logic serves XLSX files and Google spreadsheets, and tests can
// run it without either.
//
//	src, err := study.Open([]string{"study/"}, backends)
//	if err != nil {
//		return err
//	}
//	res, err := study.Pull(ctx, src, study.PullOptions{})
//	if err != nil {
//		return err
//	}
//	for _, r := range res.Records {
//		fmt.Println(r.Unit, r.Annotator, r.Status)
//	}
package study
