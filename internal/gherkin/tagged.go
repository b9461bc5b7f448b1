package gherkin

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	cucumber "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// TaggedScenario is a scenario of a feature file with every tag that
// applies to it: the feature's, its own and its examples'.
type TaggedScenario struct {
	Feature string
	Name    string
	Tags    []string
	// FeatureTags are the tags of its feature, among Tags.
	FeatureTags []string
}

// ReadTaggedScenarios lists the scenarios of the feature files of fsys as
// written (a scenario outline once, with its name unexpanded).
func ReadTaggedScenarios(fsys fs.FS) ([]TaggedScenario, error) {
	names, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, err
	}
	var out []TaggedScenario
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		doc, err := cucumber.ParseGherkinDocument(bytes.NewReader(data), (&messages.Incrementing{}).NewId)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if doc.Feature == nil {
			continue
		}
		tagNames := func(tags []*messages.Tag) []string {
			var out []string
			for _, t := range tags {
				out = append(out, strings.TrimPrefix(t.Name, "@"))
			}
			return out
		}
		featureTags := tagNames(doc.Feature.Tags)
		add := func(sc *messages.Scenario, ruleTags []string) {
			tags := slices.Concat(featureTags, ruleTags, tagNames(sc.Tags))
			for _, ex := range sc.Examples {
				tags = append(tags, tagNames(ex.Tags)...)
			}
			out = append(out, TaggedScenario{Feature: path.Base(name), Name: sc.Name, Tags: tags, FeatureTags: featureTags})
		}
		for _, child := range doc.Feature.Children {
			if child.Scenario != nil {
				add(child.Scenario, nil)
			}
			if child.Rule != nil {
				for _, rc := range child.Rule.Children {
					if rc.Scenario != nil {
						add(rc.Scenario, tagNames(child.Rule.Tags))
					}
				}
			}
		}
	}
	return out, nil
}
