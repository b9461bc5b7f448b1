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
	if windingDown != nil {
		windingDown()
	}
	fmt.Fprintln(human, "INTERRUPTED")
	return cli.InterruptExitCode(ctx)
}

// windingDown is a test hook, nil but in the signal tests' helper process:
// it runs as an interrupted run ends, its reports written, the signal's
// default handling back (cli.NotifyContext), and holds the run there so
// that the test's second signal provably lands before the process exits.
var windingDown func()
