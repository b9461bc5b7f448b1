// Package probe is the concurrency probe of the conformance tool: a judge
// beside the suite (steps/) and the generated mode (generative/) that
// sends payments at the same moment and checks the document's uniqueness
// and money rules on what comes back, through internal/contract like every
// judge. It finds what a single client cannot: a partner_trx_id checked
// and stored under two locks, a wallet debited by read, unlock, write.
//
// # Cases
//
// Run runs two cases in waves of Options.WaveSize payments sent at
// once (Options.Waves waves at most, default 20; none started after
// Options.Duration, but one at least):
//
//   - "createPayment: concurrent payments with one partner_trx_id": exactly
//     one is created, every other is refused with 409 and the exact
//     message of section 7 (contract.MsgDuplicate); the status lookup by
//     partner_trx_id shows that transaction, with the amounts it was
//     created with (a reading: status-record-amounts); the wallet, read
//     through the profile before and after, lost exactly what the created
//     one reported taking. Every other wave first sends, with the same id,
//     a payment the document refuses (the balance and coin method with
//     neither balance nor coins, §4.6 rule 2), which creates nothing (a
//     status lookup); then either one of the wave is created and the rest
//     are 409 (the refusal left the id free) or every one is 409 (it used
//     the id: the document says the id is unique, not that a refusal
//     frees it), and the refusal took nothing.
//   - "createPayment: concurrent payments from one wallet": distinct
//     partner_trx_ids, each paid with balance, coins or both: together
//     they take no more than the wallet held (contract.CheckTakenWithin:
//     it never goes below zero), and the wallet afterwards holds what it
//     held less what the created ones reported taking (balance_used and
//     coin_used, read by contract.ReadCreated).
//
// Then a third case, not in waves: "getPaymentStatus: every payment the
// run created is found by its transaction_number and its partner_trx_id"
// looks up, by each key, the payments the waves created and those given in
// Options.Earlier (the combined run's scenarios): the first of each
// partner and of each account first, then the earliest others, at most 40
// (contract.CheckFoundBy). No scenario can judge it for every payment, since
// none knows which payment was a partner's first on the target; a server
// that loses exactly that one from an index fails here. With no payment
// created it is skipped: the cases that create payments say why.
//
// A wave's requests are written but for the last byte of their bodies,
// which all go together once every request is out (or after half a
// second): the target's handlers, which have read all but that byte, meet
// the payments at the same moment, so a window between a check and a write
// is found in a few waves rather than by chance.
//
// # Accounts
//
// The probe reads the first page of each sub category of the catalog with
// the main token, and pays from the profile's funded customer
// (funded_customer: balance with the internal method 0, and coins in the
// wallet case) for the five cheapest active products, planning each wave
// from what the wallet holds (purse.go: at most half of it, shared between
// the cases; coins when the balance is short; full waves only; when
// the wallet cannot pay for the waves a race needs, the case is not judged
// and says what to fund). No other client may pay
// from that customer while the probe runs, or the wallet it reads is not
// the one its payments left: the combined run runs its judges one after
// the other. A profile without a funded customer skips the wallet case
// (StatusSkipped, with the key it lacks); the partner_trx_id case then pays
// from a cashier the probe provisions for itself, through a gateway method
// whose minimum_payment the product reaches (nothing is debited then, and
// the wallet checks are trivially met).
//
// # Verdicts
//
// Each case ends with one status (CaseResult.Status):
//
//   - StatusPassed: every wave it could judge met the rules, and it judged
//     a quarter of its planned waves at least (leastWaves: 5 of 20; a race
//     shows in some waves, not in each); a reading departed from is a warning
//     (CaseResult.Warnings), a failure with Options.Strict. Waves the target
//     kept from judging, and fewer waves than planned, are said in
//     CaseResult.Cut.
//   - StatusFailed: a wave broke a rule; the case stops there. Failure
//     names the wave, what its answers were and the rule with what came
//     back ("wave 3 of 20 (1 created, 7 refused with 409): the wallet does
//     not hold what the payments reported leave: …"), Pointer the JSON
//     pointer of the value that shows it where one does
//     (/data/balance/available of the profile, /message of a 409,
//     /data/transaction_number of the status record), Sentence the
//     document's sentence, and Reproduction a sh script that sends the
//     same wave with curl (the run's console prints it).
//   - StatusSkipped: the profile lacks what the case needs (Reason names
//     the key), or the run was interrupted before the case ran.
//   - StatusNotJudged: the target kept the case from observing its rule:
//     it refused every payment the case needed (Reason: "no wave could be
//     judged: no payment of the wave was created: 8 × 422 Saldo tidak
//     mencukupi. (20 waves)"), answered nothing within the request
//     timeout, or kept throttling; or the case judged fewer waves than a
//     race needs because the time budget or the wallet ran out (Reason
//     says which, and what to give or fund). Never a pass: the combined
//     run makes it INCOMPLETE. A refusal that itself breaks the document (a
//     server fault, a 409 for a fresh partner_trx_id) is a failure.
//
// # Bounds and transport
//
// Every request goes through one internal/throttle gate (Options.Rate,
// Options.MaxThrottleWait), as the other judges' do: a throttled answer (a
// 429, or a 503 with Retry-After) is waited out and the same request sent
// again, and a payment answered 409 after that with an id nothing else
// used is a throttled request that was processed (a failure). The HTTP
// client carries the transport options (internal/transport: TLS, -H);
// Options.HTTPClient replaces it. Each request is bounded by
// Options.RequestTimeout: a payment without an answer is uncertain, settled
// by a status lookup of its partner_trx_id, and never a failure by itself;
// a slow server passes as long as it answers within the timeout.
//
// The probe draws products, destination numbers and which of balance and
// coins pays from Options.Seed (printed in the result; 0 picks one), so a
// run is repeatable apart from the target's timing; its partner_trx_ids are
// fresh on every run.
//
// # Wiring
//
//	res, err := probe.Run(ctx, probe.Options{Profile: prof, Conn: conn, RequestTimeout: timeout,
//		Rate: rate, MaxThrottleWait: maxWait, Seed: seed, Done: func(c probe.CaseResult) { console.Scenario(c.Verdict(false)) }})
//
// err is non-nil only when the probe could not start (ErrUsage: no
// profile, an invalid one, a wave size out of bounds, unusable transport
// options). Result.Cases holds one CaseResult per case, in order;
// Result.OK, Failed, NotJudged, Skipped and Warned count them; each is a
// case of the run in the run's words (CaseResult.Verdict), which the run's
// console and reports write (the probe has no console of its own). A verdict maps as: any
// StatusFailed fails the run; otherwise any StatusNotJudged, or
// Result.Stopped, makes it incomplete; StatusSkipped is a skip the profile
// (or an interruption, Result.Interrupted) caused. Against the embedded
// reference a run with the defaults sends 443 requests in about a tenth of
// a second (docs/performance.md, "Concurrency probe").
package probe
