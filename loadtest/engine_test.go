package loadtest

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStoreMax(t *testing.T) {
	t.Parallel()
	var m atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				storeMax(&m, int64(g*1000+i))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(7999), m.Load())
	storeMax(&m, 5)
	assert.Equal(t, int64(7999), m.Load())
}
