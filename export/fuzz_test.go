package export_test

// repeat is an endless stream of one byte.
type repeat byte
