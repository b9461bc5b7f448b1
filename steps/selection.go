package steps

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// LoadFeatures loads the feature files of fsys (nil: the suite's own) for a
// run (Options.Features) and checks, before anything is started, that the
// tag expression and the locations are well formed and select at least one
// of their scenarios. The error wraps ErrUsage.
func LoadFeatures(fsys fs.FS, tags string, locations []string) (*gherkin.Features, error) {
	if fsys == nil {
		fsys = features.FS
	}
	fts, err := gherkin.Load(fsys)
	if err != nil {
		return nil, fmt.Errorf("%w: reading the features: %w", ErrUsage, err)
	}
	if _, err := fts.Select(tags, locations); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return fts, nil
}

// ReadRerun returns the locations listed in a rerun file (gherkin.RerunFile
// of a report directory). A missing file is a usage error naming it.
func ReadRerun(path string) ([]string, error) {
	locs, err := gherkin.ReadRerun(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist: run the suite with the same report directory first", ErrUsage, path)
	}
	return locs, err
}
