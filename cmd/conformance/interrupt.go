package main

import (
	"context"
	"fmt"
	"io"

	"github.com/partnercommerce/conformance/internal/cli"
)

// interrupted prints INTERRUPTED and returns the exit code of the signal
// that cancelled ctx (130 SIGINT, 143 SIGTERM). An interrupted run is not a
// verdict: it writes no failure for what it did not finish.
func interrupted(ctx context.Context, human io.Writer) int {
	fmt.Fprintln(human, "INTERRUPTED")
	return cli.InterruptExitCode(ctx)
}
