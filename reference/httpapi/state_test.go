package httpapi

import (
	"io/fs"
	"net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/reference"
)

// syncFailing is a state file whose fsync fails while fail is set.
type syncFailing struct {
	reference.StateFile
	fail *atomic.Bool
}

func (f syncFailing) Sync() error {
	if f.fail.Load() {
		return syscall.EIO
	}
	return f.StateFile.Sync()
}

// TestFailedFsyncAnswers500 checks the HTTP answer of a payment whose
// journal record could not be fsynced: the contract's 500, and the payment
// not there afterwards.
func TestFailedFsyncAnswers500(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	open := func(name string, flag int, perm fs.FileMode) (reference.StateFile, error) {
		f, err := os.OpenFile(name, flag, perm) //nolint:gosec // a test's temporary directory
		if err != nil {
			return nil, err
		}
		return syncFailing{StateFile: f, fail: &fail}, nil
	}
	e := newEnv(t, reference.WithState(t.TempDir()), reference.WithStateFiles(open))
	t.Cleanup(func() { _ = e.store.Close() })
	ok := e.pay(funded, payBody(1002, "081234567890", 0, "fsync-ok", true, false))
	assert.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)

	fail.Store(true)
	r := e.pay(funded, payBody(1002, "081234567890", 0, "fsync-fails", true, false))
	assert.Equal(t, http.StatusInternalServerError, r.Status)
	assert.Equal(t, "Terjadi kesalahan sistem.", r.message())
	assert.Equal(t, false, r.get("status"))
	fail.Store(false)

	r = e.do(http.MethodGet, "/client/v2/payment/status?partner_trx_id=fsync-fails", funded, "")
	assert.Equal(t, http.StatusNotFound, r.Status, "the payment that answered 500 was not kept")
	r = e.do(http.MethodGet, "/client/v2/payment/status?partner_trx_id=fsync-ok", funded, "")
	assert.Equal(t, http.StatusOK, r.Status)
}
