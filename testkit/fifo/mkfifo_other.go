//go:build !unix

package fifo

import "errors"

func mkfifo(string) error { return errors.New("named pipes as on Unix only") }
