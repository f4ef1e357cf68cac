//go:build !unix

package main

import "time"

// cpuTime is unknown here: floor reports no CPU time.
func cpuTime() time.Duration { return 0 }
