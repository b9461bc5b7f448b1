package steps

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// CheckSelection reports, before anything is started, whether the tag
// expression and the locations are well formed and select at least one
// scenario of fsys (nil: the suite's features). The error wraps ErrUsage.
func CheckSelection(fsys fs.FS, tags string, locations []string) error {
	if fsys == nil {
		fsys = features.FS
	}
	idx, err := gherkin.LoadIndex(fsys)
	if err != nil {
		return fmt.Errorf("%w: reading the features: %w", ErrUsage, err)
	}
	if _, err := idx.Select(tags, locations); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return nil
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
