package input

// ahead runs a producer in a goroutine of its own, a few batches ahead of
// whoever takes what it makes: reading and decoding records on one core
// while the caller checks and renders the ones before them on another.
type ahead[T any] struct {
	batches chan []T
	quit    chan struct{}
	done    chan struct{}
	cur     []T
	ended   bool
}

// Items in a batch; at most aheadBatches wait to be taken.
const (
	aheadItems   = 64
	aheadBatches = 4
)

// runAhead calls produce until it says its item is the last.
func runAhead[T any](produce func() (item T, last bool)) *ahead[T] {
	a := &ahead[T]{batches: make(chan []T, aheadBatches), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer close(a.batches)
		for {
			batch := make([]T, 0, aheadItems)
			last := false
			for !last && len(batch) < aheadItems {
				var item T
				item, last = produce()
				batch = append(batch, item)
			}
			select {
			case a.batches <- batch:
			case <-a.quit:
				return
			}
			if last {
				return
			}
		}
	}()
	return a
}

// next is the next item; ok is false once the last has been taken.
func (a *ahead[T]) next() (item T, ok bool) {
	if len(a.cur) == 0 {
		if a.cur, ok = <-a.batches; !ok {
			return item, false
		}
	}
	item, a.cur = a.cur[0], a.cur[1:]
	return item, true
}

// stop ends the producing, and returns once it has stopped.
func (a *ahead[T]) stop() {
	if !a.ended {
		a.ended = true
		close(a.quit)
	}
	<-a.done
}
