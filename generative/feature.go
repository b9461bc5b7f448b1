package generative

import (
	"fmt"
	"strings"
)

// A failing request of a schema property that the document refuses (a
// stated defect answered 2xx) is also written as a feature file in the
// suite's replay steps (steps/replay.go): `conformance FILE` sends the same
// request to the target as a fresh account and fails the same way, and the
// file is a regression test once the server is fixed.

// feature renders the request r, sent as the account with token, as a
// feature file; "" when the replay steps cannot say it (no token, or a
// body that is not sent as JSON).
func (w *world) feature(command, what string, r request) string {
	given, actor := "a cashier provisioned by the partner", "the cashier"
	switch {
	case r.Token == "" || (r.Body != nil && r.ContentType != "application/json"):
		return ""
	case r.Token == w.prof.MainToken:
		given, actor = "the partner's main account", "the main account"
	case w.funded != nil && r.Token == w.funded.Token:
		given, actor = "the funded customer of the partner", "the funded customer"
	}
	path := r.Path
	if r.Query != "" {
		path += "?" + r.Query
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by the generated mode: %s\n", command)
	b.WriteString("# Run it against the target: conformance --target URL --profile FILE THIS_FILE\n")
	b.WriteString("@generated\n")
	fmt.Fprintf(&b, "Feature: Generated reproduction: %s\n\n", what)
	fmt.Fprintf(&b, "  Scenario: %s is refused\n", what)
	fmt.Fprintf(&b, "    Given %s\n", given)
	if r.Body == nil {
		fmt.Fprintf(&b, "    When %s sends %s %q\n", actor, r.Method, path)
	} else {
		fmt.Fprintf(&b, "    When %s sends %s %q with the JSON body:\n      \"\"\"\n      %s\n      \"\"\"\n", actor, r.Method, path, r.Body)
	}
	b.WriteString("    Then the target refuses it with a 4xx status\n")
	return b.String()
}

// sequenceFeature writes the scenario of a failing stateful sequence
// (machine.scenario) as a feature file: every step is one of the suite's
// (the generated sequence steps of steps/ and the suite's own), so
// `conformance FILE` takes the same steps against the target and fails
// at the same check; a partner_trx_id the model made up (gen-...) stands
// for a fresh one of the run. The feature of a strict run is run with
// --strict: its last step may be a check that rests on a reading, which
// only a strict run fails.
func sequenceFeature(command, scenario string, strict bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by the generated mode: %s\n", command)
	flag := ""
	if strict {
		flag = "--strict "
	}
	fmt.Fprintf(&b, "# Run it against the target: conformance %s--target URL --profile FILE THIS_FILE\n", flag)
	b.WriteString("@generated\n")
	b.WriteString("Feature: Generated reproduction: a stateful sequence\n\n")
	for _, l := range strings.Split(strings.TrimRight(scenario, "\n"), "\n") {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}
