//go:build !unix

package boundedread

// nonblock is a flag of Unix alone; elsewhere Open relies on its first
// look at the file.
const nonblock = 0
