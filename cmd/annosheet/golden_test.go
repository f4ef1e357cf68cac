package main

import "flag"

// update rewrites the golden files under testdata with what the tests
// make: go test ./cmd/annosheet -run NAME -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")
