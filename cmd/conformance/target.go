package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// errTargetNeedsProfile: a target URL alone lacks its credentials.
var errTargetNeedsProfile = errors.New("--target needs --profile (the target's secret key and main token; see profiles/example.yaml)")

// resolveTarget decides what a run tests: the profile at profilePath, its
// base URL replaced by targetURL when one is given, or, with neither, the
// embedded reference server started on loopback (embedded is then true and
// stop shuts it down). An error is the user's: a usage error.
func resolveTarget(ctx context.Context, profilePath, targetURL string, logLevel slog.Level, logs io.Writer) (prof *profiles.Profile, stop func(), embedded bool, err error) {
	stop = func() {}
	switch {
	case profilePath != "":
		if prof, err = profiles.Load(profilePath); err != nil {
			return nil, stop, false, err
		}
	case targetURL != "":
		return nil, stop, false, errTargetNeedsProfile
	default:
		logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: logLevel}))
		url, stopRef, err := httpapi.ServeLoopback(ctx, logger)
		if err != nil {
			return nil, stop, false, fmt.Errorf("starting the embedded reference server: %w", err)
		}
		return profiles.Reference(url), stopRef, true, nil
	}
	if targetURL != "" {
		prof.BaseURL = strings.TrimRight(targetURL, "/")
	}
	return prof, stop, false, nil
}
