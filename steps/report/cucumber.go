package report

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"

	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// CompleteCucumber rewrites godog's cucumber.json at path with what godog
// does not know: the features given to godog as file:line are merged back
// into one feature per file, the rows a selection left out are dropped, a
// skipped scenario says why on its first step and has no step shown other
// than skipped, and a scenario's warnings are attached to its last step as
// output and a text/plain embedding, where Cucumber reporters show them.
func CompleteCucumber(path string, results []ScenarioResult) error {
	return rewriteCucumber(path, func(features []map[string]any) []map[string]any {
		return completeFeatures(features, results)
	})
}

// completeFeatures is CompleteCucumber on the features of cucumber.json.
func completeFeatures(features []map[string]any, results []ScenarioResult) []map[string]any {
	type key struct{ uri, name string }
	byKey := map[key][]ScenarioResult{}
	for _, r := range results {
		k := key{r.Feature, r.Name}
		byKey[k] = append(byKey[k], r)
	}
	var merged []map[string]any
	index := map[string]map[string]any{}
	for _, f := range features {
		uri := gherkin.BaseURI(str(f["uri"]))
		f["uri"] = uri
		var kept []any
		for _, el := range list(f["elements"]) {
			e, ok := el.(map[string]any)
			if !ok {
				continue
			}
			k := key{uri, str(e["name"])}
			rs := byKey[k]
			if len(rs) == 0 {
				continue // not selected
			}
			r := rs[0]
			byKey[k] = rs[1:]
			annotate(e, r)
			kept = append(kept, e)
		}
		if prev, ok := index[uri]; ok {
			prev["elements"] = append(list(prev["elements"]), kept...)
			continue
		}
		f["elements"] = kept
		index[uri] = f
		merged = append(merged, f)
	}
	if merged == nil {
		merged = []map[string]any{}
	}
	return merged
}

// rewriteCucumber replaces the features of the cucumber.json at path with
// what edit makes of them, written as godog writes the file.
func rewriteCucumber(path string, edit func([]map[string]any) []map[string]any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var features []map[string]any
	if err := json.Unmarshal(data, &features); err != nil {
		return err
	}
	out, err := json.MarshalIndent(edit(features), "", "    ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(out, '\n'))
}

// annotate completes one cucumber element with its scenario's result.
func annotate(e map[string]any, r ScenarioResult) {
	steps := list(e["steps"])
	if r.Status == StatusSkipped {
		for i, st := range steps {
			s, ok := st.(map[string]any)
			if !ok {
				continue
			}
			res := map[string]any{"status": "skipped"}
			if i == 0 {
				res["error_message"] = r.Reason
			}
			s["result"] = res
		}
	}
	if len(r.Warnings) > 0 && len(steps) > 0 {
		if s, ok := steps[len(steps)-1].(map[string]any); ok {
			var lines []string
			output := list(s["output"])
			for _, w := range r.Warnings {
				lines = append(lines, w.String())
				output = append(output, w.String())
			}
			text := strings.Join(lines, "\n")
			s["output"] = output
			s["embeddings"] = append(list(s["embeddings"]), map[string]any{
				"mime_type": "text/plain",
				"name":      "warnings",
				"data":      base64.StdEncoding.EncodeToString([]byte(text)),
			})
		}
	}
}

// RelocateSteps sets the match location of every step of the cucumber.json
// at path to where its definition is registered (file:line), as locate
// finds it from the step's text; godog names one line for every step.
func RelocateSteps(path string, locate func(step string) (string, bool)) error {
	return rewriteCucumber(path, func(features []map[string]any) []map[string]any {
		relocate(features, locate)
		return features
	})
}

// relocate is RelocateSteps on the features of cucumber.json.
func relocate(features []map[string]any, locate func(step string) (string, bool)) {
	for _, f := range features {
		for _, el := range list(f["elements"]) {
			e, _ := el.(map[string]any)
			for _, st := range list(e["steps"]) {
				step, _ := st.(map[string]any)
				match, _ := step["match"].(map[string]any)
				if match == nil {
					continue
				}
				if loc, ok := locate(str(step["name"])); ok {
					match["location"] = loc
				}
			}
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}
