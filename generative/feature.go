package generative

import (
	"fmt"
	"strings"
)

// A failing request of a schema property is also written as a feature file
// in the suite's replay steps (steps/replay.go): `conformance FILE` sends the
// same request to the target as a fresh account (or the profile's funded
// customer, holding what the request needs) and fails the same way, and the
// file is a regression test once the server is fixed.

// reproCheck is the check a written request ends with.
type reproCheck int

const (
	// refusedCheck: the document refuses the request (a stated defect).
	refusedCheck reproCheck = iota
	// answeredCheck: the answer comes, is no server fault but the 500
	// section 7 gives the operation, and is one openapi.yaml allows (the
	// replay step validates every answer).
	answeredCheck
	// walletCheck: the payer's wallet holds what the payment reported
	// taking (nothing, for a refused one).
	walletCheck
	// brokenCheck: the answer to a request that breaks the schema comes,
	// is no 5xx at all (bad input is answered, not a system fault), and is
	// one openapi.yaml allows.
	brokenCheck
)

// feature renders the request r, sent as the account with token, as a
// feature file ending with check c; need is what the funded customer must
// hold for the request to show the fault. "" when the replay steps cannot
// say it (no token, or a body that is not sent as JSON).
func (w *world) feature(command, what string, r request, c reproCheck, need wallet) string {
	given, actor := "a cashier provisioned by the partner", "the cashier"
	switch {
	case r.Token == "" || (r.Body != nil && r.ContentType != "application/json"):
		return ""
	case r.Token == w.prof.MainToken:
		given, actor = "the partner's main account", "the main account"
	case w.funded != nil && r.Token == w.funded.Token:
		given, actor = fundedGiven(need), "the funded customer"
	case c == walletCheck: // a cashier whose wallet the scenario reads first
		given, actor = "the partner provisioned a new cashier account, cashier 1", "cashier 1"
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
	fmt.Fprintf(&b, "  Scenario: %s %s\n", what, [...]string{"is refused", "is answered as openapi.yaml says", "takes from the wallet what it reports",
		"is answered as openapi.yaml says"}[c])
	fmt.Fprintf(&b, "    Given %s\n", given)
	if r.Body == nil {
		fmt.Fprintf(&b, "    When %s sends %s %q\n", actor, r.Method, path)
	} else {
		fmt.Fprintf(&b, "    When %s sends %s %q with the JSON body:\n      \"\"\"\n      %s\n      \"\"\"\n", actor, r.Method, path, r.Body)
	}
	switch c {
	case refusedCheck:
		b.WriteString("    Then the target refuses it with a 4xx status\n")
	case answeredCheck:
		b.WriteString("    Then " + thenNoServerFault + "\n")
	case brokenCheck:
		b.WriteString("    Then " + thenNoFaultOnBrokenRequest + "\n")
	case walletCheck:
		fmt.Fprintf(&b, "    And %s reads its profile\n    Then %s's wallet holds what the payments reported leave\n", actor, actor)
	}
	return b.String()
}

// fundedGiven introduces the funded customer, holding need (when it is not
// nothing): a reproduction reads its funds first, and a wallet an earlier
// run spent or reset fails there instead of hiding the fault.
func fundedGiven(need wallet) string {
	if need == (wallet{}) {
		return "the funded customer of the partner"
	}
	return fmt.Sprintf("the funded customer of the partner, holding at least %d rupiah and %d coins", need.Balance, need.Coins)
}

// fundsNeeded is what the funded customer, which held start when the
// reproduction began, must hold for it: the profile's reserve (min_balance,
// min_coins) and what its payments may take (spend), at least one of each
// it held, and never more than it held.
func (w *world) fundsNeeded(start, spend wallet) wallet {
	if w.funded == nil {
		return wallet{}
	}
	need := func(held, reserve, spend int64) int64 { return min(held, max(reserve+spend, 1)) }
	return wallet{Balance: need(start.Balance, w.funded.MinBalance, spend.Balance), Coins: need(start.Coins, w.funded.MinCoins, spend.Coins)}
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
