// Package stopping gives tests a context that is done at a step they
// choose: a computation stopped while it runs, wherever it looks.
//
//	ctx := stopping.After(context.Background(), 100) // done at the 101st look
//	_, err := compute(ctx) // err is context.Canceled
package stopping

import "context"

// Context is a context that is done once its Err has been asked n times.
type Context struct {
	context.Context
	n int
}

// After is ctx, done once its Err has been asked n times.
func After(ctx context.Context, n int) *Context { return &Context{Context: ctx, n: n} }

// Err is context.Canceled from the n+1-th call on.
func (c *Context) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}
