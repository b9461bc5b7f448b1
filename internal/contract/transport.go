package contract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// TransportError turns a client failure into a sentence a partner
// understands: which side failed and how (every judge that sends requests
// says it the same way).
func TransportError(err error, timeout time.Duration) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return fmt.Errorf("no complete answer within the request timeout of %s: %w", timeout, err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("the run was cancelled: %w", err)
	case isConnRefused(err):
		return fmt.Errorf("the target refused the connection (is the server running at that address?): %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection reset"):
		return fmt.Errorf("the target closed the connection without a complete answer: %w", err)
	}
	return fmt.Errorf("the request could not be completed: %w", err)
}

func isConnRefused(err error) bool {
	return strings.Contains(err.Error(), "connection refused")
}
