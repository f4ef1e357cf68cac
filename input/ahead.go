package input

import "sync"

// ahead runs a producer in a goroutine of its own, a little ahead of
// whoever takes what it makes: reading and decoding records on one core
// while the caller checks and renders the ones before them on another.
//
// What waits to be taken is bounded: the producer makes no more once
// aheadItems items or aheadBytes bytes (as it counts them) wait, so that
// at most one item more than that is held, besides the one being used.
type ahead[T any] struct {
	mu    sync.Mutex
	moved sync.Cond // signalled when an item is put or taken, or on stop
	queue []T
	sizes []int
	bytes int
	ended bool // the producer made its last item
	quit  bool
	done  chan struct{}
}

const (
	aheadItems = 256
	aheadBytes = 4 << 20
)

// runAhead calls produce until it says its item is the last, or stop is
// called; size is what the item counts for.
func runAhead[T any](produce func() (item T, size int, last bool)) *ahead[T] {
	a := &ahead[T]{done: make(chan struct{})}
	a.moved.L = &a.mu
	go func() {
		defer close(a.done)
		for {
			a.mu.Lock()
			for !a.quit && len(a.queue) > 0 && (len(a.queue) >= aheadItems || a.bytes >= aheadBytes) {
				a.moved.Wait()
			}
			quit := a.quit
			a.mu.Unlock()
			if quit {
				return
			}
			item, size, last := produce()
			a.mu.Lock()
			a.queue, a.sizes = append(a.queue, item), append(a.sizes, size)
			a.bytes += size
			a.ended = last
			a.moved.Broadcast()
			a.mu.Unlock()
			if last {
				return
			}
		}
	}()
	return a
}

// next is the next item; ok is false once the last has been taken.
func (a *ahead[T]) next() (item T, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.queue) == 0 && !a.ended {
		a.moved.Wait()
	}
	if len(a.queue) == 0 {
		return item, false
	}
	item, a.bytes = a.queue[0], a.bytes-a.sizes[0]
	var zero T
	a.queue[0] = zero // let it go once used
	a.queue, a.sizes = a.queue[1:], a.sizes[1:]
	a.moved.Broadcast()
	return item, true
}

// stop ends the producing, and returns once it has stopped: after the
// item it is making, if any.
func (a *ahead[T]) stop() {
	a.mu.Lock()
	a.quit = true
	a.moved.Broadcast()
	a.mu.Unlock()
	<-a.done
}
