package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/features"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// errTargetNeedsProfile: a target URL alone lacks its credentials.
var errTargetNeedsProfile = errors.New("--target needs --profile (the target's secret key and main token; see profiles/example.yaml)")

// resolveTarget decides what a run tests: the profile at profilePath (its
// ${NAME} values taken from getenv), its
// base URL replaced by targetURL when one is given, or, with neither, the
// embedded reference server started on loopback (embedded is then true and
// stop shuts it down). An error is the user's: a usage error.
func resolveTarget(ctx context.Context, profilePath, targetURL string, getenv func(string) string, logLevel slog.Level, logs io.Writer) (prof *profiles.Profile, stop func(), embedded bool, err error) {
	stop = func() {}
	switch {
	case profilePath != "":
		if prof, err = profiles.LoadEnv(profilePath, getenv); err != nil {
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

// featuresFor decides which feature files a run reads: the suite's own
// (nil), or, when the locations name feature files on disk that are not
// the suite's (a reproduction the generated mode wrote), the directory
// holding them, with the locations made relative to it. All such files
// must share one directory.
func featuresFor(locations []string) (fs.FS, []string, error) {
	suite, err := fs.Glob(features.FS, "*.feature")
	if err != nil {
		return nil, nil, err
	}
	var dir string
	var local []string
	for _, loc := range locations {
		file, lines, _ := strings.Cut(loc, ":")
		clean := filepath.ToSlash(filepath.Clean(file))
		base := path.Base(clean)
		if slices.Contains(suite, base) && (clean == base || strings.HasSuffix(clean, "features/"+base)) {
			if dir != "" {
				return nil, nil, fmt.Errorf("%s: a run reads either the suite's feature files or files of one directory, not both", loc)
			}
			continue
		}
		if _, err := os.Stat(file); err != nil {
			continue // the suite's selection names it unknown
		}
		d := filepath.Dir(file)
		if dir != "" && d != dir {
			return nil, nil, fmt.Errorf("%s: the feature files of a run outside the suite must share one directory", loc)
		}
		dir = d
		if lines != "" {
			base += ":" + lines
		}
		local = append(local, base)
	}
	if dir == "" {
		return nil, locations, nil
	}
	if len(local) != len(locations) {
		return nil, nil, fmt.Errorf("a run reads either the suite's feature files or files of one directory (%s), not both", dir)
	}
	return os.DirFS(dir), local, nil
}
