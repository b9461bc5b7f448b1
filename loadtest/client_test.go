package loadtest

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBearer(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Bearer abc", bearer("abc"))
	assert.Empty(t, bearer(""), "no token, no Authorization header")
}

// TestTransportErrorsReadAsHTTPClientErrors: a request the transport could
// not send is reported as http.Client would report it ("Post: dial tcp ...")
// and a timeout as "timeout", whatever the method.
func TestTransportErrorsReadAsHTTPClientErrors(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Post", urlErrorOp("POST"))
	assert.Equal(t, "Get", urlErrorOp("GET"))
	assert.Equal(t, "Get", urlErrorOp(""))
	cl, err := newClient(profiles.Reference("http://127.0.0.1:1"), 0, time.Second, transport.Options{}) // nothing listens on port 1
	require.NoError(t, err)
	defer cl.close()
	for _, c := range []call{{op: record.OpCreate, method: "POST", url: cl.createURL, body: []byte(`{}`)}, {op: record.OpList, url: cl.base + "/client/v2/product/list"}} {
		resp := cl.do(context.Background(), c)
		require.Error(t, resp.err)
		assert.True(t, strings.HasPrefix(errorText(resp.err), urlErrorOp(c.method)+": dial tcp"), errorText(resp.err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	assert.Equal(t, "timeout", errorText(cl.do(ctx, call{op: record.OpList, url: cl.base + "/"}).err))
}

// TestNotDeliveredIsNeverUncertain: a failure to connect is "not
// delivered"; a connection lost after the request went out is uncertain.
func TestNotDeliveredIsNeverUncertain(t *testing.T) {
	t.Parallel()
	dial := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	reset := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	assert.True(t, notDelivered(dial))
	assert.False(t, notDelivered(reset))
	assert.False(t, notDelivered(errors.New("timeout")))
}
