package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/steps"
)

// TestTheReadmeLeadsToYourOwnServer: the README starts with the two
// commands a newcomer needs (make conformance, make test), and the next
// thing it says is how to test their own server, with a failure's
// reproduction as this run prints it (steps.ReproductionHead).
func TestTheReadmeLeadsToYourOwnServer(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	first := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(readme)
	require.NotNil(t, first, "the README has no sh block")
	assert.Regexp(t, `(?m)^make conformance\b.*\n^make test\b`, first[1], "the README's first commands")
	headings := regexp.MustCompile(`(?m)^#{1,3} .*`).FindAllString(readme, 3)
	require.Len(t, headings, 3)
	assert.Equal(t, "## Test your own server", headings[1], "the first section after the title")
	own := readme[strings.Index(readme, headings[1]):strings.Index(readme, headings[2])]
	assert.Contains(t, own, "make conformance TARGET=")
	assert.Contains(t, own, strings.TrimSpace(steps.ReproductionHead), "a failure's reproduction, as the console prints it")
}
