package report

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// Finding is one defect the run found, told once: what was found, the
// sentence of the document it breaks, one request with its answer, and the
// consequences it explains folded under it (a reused id accepted: created
// twice, so its wave broke, so its wallet is off, so its look-up names
// another transaction). A report leads with its findings; Report.Verdict
// still counts every class (violations.jsonl lists every id).
type Finding struct {
	// Class is the class of what was found (verdict.Class*, ClassGateway),
	// Kind what within it (verdict.Kind*, or the contract's rule).
	Class string `json:"class"`
	Kind  string `json:"kind,omitempty"`
	// Headline says what was found, in words, with its count and a few
	// examples.
	Headline string `json:"headline"`
	// Count counts what the headline counts: ids, accounts or answers.
	Count    int      `json:"count"`
	Examples []string `json:"examples,omitempty"`
	// Sentence is the sentence of the document the finding breaks (a row
	// of section 7, or a rule; from internal/contract).
	Sentence string `json:"sentence,omitempty"`
	// Exhibit is one request of the run and its answer that show it.
	Exhibit *record.Exhibit `json:"exhibit,omitempty"`
	// Consequences are what the finding explains, each counted once here
	// and nowhere else among the findings.
	Consequences []Consequence `json:"consequences,omitempty"`
}

// Consequence is what a finding explains: a class of entries (or answers)
// that follow from it.
type Consequence struct {
	Class    string   `json:"class"`
	Kind     string   `json:"kind,omitempty"`
	Count    int      `json:"count"`
	Text     string   `json:"text"`
	Examples []string `json:"examples,omitempty"`
}

// ClassGateway is the class of the answers a gateway in front of the
// target gave instead of the API (contract.GatewayAnswer).
const ClassGateway = "gateway"

// The causal folding. Which finding explains which (verdict.Entry.Cause
// carries the per-id part of it):
//
//   - a gateway's page explains the payments it answered (uncertain, then
//     resolved by payment status), the look-ups it answered (not
//     reconciled), and an operation none of whose answers was the API's;
//   - a lost write (created, then not found) explains its wallet's falling
//     by less than the answers say, within what the lost payments took;
//   - an id created more than once (duplicate) explains its idempotency
//     wave broken by more than one creation, its look-up naming another
//     transaction of the id, and its account's wallet when the extra
//     creations' debits account for the difference exactly;
//   - a contract rule broken by every answer of an operation explains
//     that none of its answers is one the document allows;
//   - the reconciliation stopping explains the ids it did not look up.
//
// Everything else is a finding of its own, grouped by what was found
// (its class and kind; a contract violation by its rule, whichever
// operations showed it), so that one defect reads as one finding.

// findings builds rep's findings from its verdicts and error set; faults
// and began place the ids in the run's faults.
func findings(rep *Report, faults []nemesis.Fault, began time.Time) []Finding {
	fs := &findingList{rep: rep, faults: faults, began: began}
	fs.gateways()
	fs.reconciliation()
	fs.contract()
	fs.operations()
	return fs.list
}

// findingList builds the findings of one report.
type findingList struct {
	rep    *Report
	faults []nemesis.Fault
	began  time.Time
	list   []Finding
}

// of returns the first finding of class, or nil.
func (fs *findingList) of(class string) *Finding {
	for i := range fs.list {
		if fs.list[i].Class == class {
			return &fs.list[i]
		}
	}
	return nil
}

// ofKind returns the first finding of kind, or nil.
func (fs *findingList) ofKind(kind string) *Finding {
	for i := range fs.list {
		if fs.list[i].Kind == kind {
			return &fs.list[i]
		}
	}
	return nil
}

// kindStopped is the Kind (and the Cause of its consequences) of the
// finding of a reconciliation that stopped: the target stopped answering
// it.
const kindStopped = "stopped"

// gateways adds a finding per distinct gateway page of the error set.
func (fs *findingList) gateways() {
	rep := fs.rep
	answered := rep.Requests - rep.Uncertain - rep.NotDelivered
	byText := map[string]int{} // the page's text → its finding
	pages := map[string]contract.Gateway{}
	for _, e := range rep.Errors {
		g, ok := gatewayOf(e)
		if !ok {
			continue
		}
		i, seen := byText[e.Error]
		if !seen {
			i = len(fs.list)
			byText[e.Error], pages[e.Error] = i, g
			fs.list = append(fs.list, Finding{Class: ClassGateway, Kind: fmt.Sprint(g.Status), Sentence: contract.SentenceGateway, Exhibit: e.Exhibit})
		}
		fs.list[i].Count += e.Count
	}
	for text, i := range byText {
		f, g := &fs.list[i], pages[text]
		f.Headline = fmt.Sprintf("%s, to %s of %s answered requests: %s", g.String(), readable.Thousands(f.Count), readable.Thousands(answered), g.Advice())
	}
}

// gatewayOf is the gateway of an error set entry, when a gateway gave it.
func gatewayOf(e record.ErrorEntry) (contract.Gateway, bool) {
	x := e.Exhibit
	if x == nil || !strings.HasPrefix(e.Error, "a gateway answered") {
		return contract.Gateway{}, false
	}
	return contract.GatewayAnswer(x.Status, x.Header(), []byte(x.Answer))
}

// entryKey groups the entries of one finding or consequence.
type entryKey struct{ class, kind string }

// classOrder is the order the reconciliation's findings are told in: what
// a reader acts on first.
var classOrder = []string{verdict.ClassLost, verdict.ClassResurrected, verdict.ClassDuplicate, verdict.ClassIdempotency,
	verdict.ClassWalletMismatch, verdict.ClassNotReconciled}

// reconciliation adds the findings of the reconciliation's entries, each
// (class, kind) one, and folds the entries with a cause under its
// finding.
func (fs *findingList) reconciliation() {
	r := fs.rep.Reconciliation
	if r == nil {
		return
	}
	own, folded := map[entryKey][]verdict.Entry{}, map[string]map[entryKey][]verdict.Entry{}
	if stopped := fs.rep.ReconcileStopped; stopped != "" {
		// What the reconciliation did not get to, it did not for one
		// reason: the target stopped answering it.
		fs.list = append(fs.list, Finding{Class: verdict.ClassNotReconciled, Kind: kindStopped,
			Headline: "the run could not reconcile its payments: " + stopped})
	}
	for _, e := range r.Entries {
		k := entryKey{e.Class, e.Kind}
		switch {
		case fs.rep.ReconcileStopped != "" && e.Cause == "" && (e.Kind == verdict.KindNotLookedUp || e.Kind == verdict.KindWalletNotRead):
			e.Cause = kindStopped
			fallthrough
		case e.Cause != "":
			if folded[e.Cause] == nil {
				folded[e.Cause] = map[entryKey][]verdict.Entry{}
			}
			folded[e.Cause][k] = append(folded[e.Cause][k], e)
		case e.Class != verdict.ClassUncertain: // uncertain requests fail by their threshold
			own[k] = append(own[k], e)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(own), byClass) {
		fs.list = append(fs.list, fs.entryFinding(k, own[k]))
	}
	for _, cause := range slices.Sorted(maps.Keys(folded)) {
		groups := folded[cause]
		f := fs.of(cause)
		if cause == kindStopped {
			f = fs.ofKind(kindStopped)
		}
		if f == nil { // the cause found nothing of its own: its consequences stand alone
			for k, es := range groups {
				fs.list = append(fs.list, fs.entryFinding(k, es))
			}
			continue
		}
		for _, k := range slices.SortedFunc(maps.Keys(groups), byClass) {
			f.Consequences = append(f.Consequences, fs.consequence(k, groups[k]))
		}
	}
}

// byClass orders keys by class (classOrder), then kind.
func byClass(a, b entryKey) int {
	if d := slices.Index(classOrder, a.class) - slices.Index(classOrder, b.class); d != 0 {
		return d
	}
	return strings.Compare(a.kind, b.kind)
}

// findingText is what a finding of the reconciliation says: its headline,
// whose %s is the count, and the sentence of the document it breaks ("":
// the run's own limit, not the API's).
type findingText struct{ headline, sentence string }

// findingTexts are the findings of the reconciliation, by class and kind.
var findingTexts = map[entryKey]findingText{
	{verdict.ClassLost, ""}: {"%s created payments were lost: acknowledged as created, then payment status did not find them", contract.SentenceFound},
	{verdict.ClassResurrected, verdict.KindThrottled}: {"a throttled payment was processed: %s payments answered as throttled were found created when sent again",
		contract.SentenceThrottle},
	{verdict.ClassResurrected, verdict.KindRefused}: {"%s payments refused or never delivered were created all the same: payment status found them",
		contract.SentenceRefusalTakesNothing},
	{verdict.ClassDuplicate, ""}: {"a reused partner_trx_id was accepted: %s ids were created more than once", contract.SentenceUniqueTrxID},
	{verdict.ClassIdempotency, verdict.KindWaveEarly409}: {"%s idempotency waves got a 409 before any use of their partner_trx_id, " +
		"or answers other than one created, 409s and one same refusal", contract.SentenceUniqueTrxID},
	{verdict.ClassWalletMismatch, verdict.KindOverReuse}: {"a refused reuse of a partner_trx_id took from the wallet: %s wallets fell by more than " +
		"their created payments debited, by exactly the amount of each 409 answer to a reused id", contract.SentenceRefusalTakesNothing},
	{verdict.ClassWalletMismatch, verdict.KindOverThrottled}: {"a throttled payment was processed: %s wallets fell by more than their created " +
		"payments debited, within what the payments answered as throttled could have taken", contract.SentenceThrottle},
	{verdict.ClassWalletMismatch, verdict.KindOverRefused}: {"a refused payment took from the wallet: %s wallets fell by more than their created " +
		"payments debited, within what the refused payments could have taken", contract.SentenceRefusalTakesNothing},
	{verdict.ClassWalletMismatch, verdict.KindOver}: {"%s wallets fell by more than the created payments' answers say they took", contract.SentenceWalletAsReported},
	{verdict.ClassWalletMismatch, verdict.KindUnder}: {"%s wallets fell by less than the created payments' answers say they took: " +
		"debits were lost (concurrent payments writing over each other's debit?)", contract.SentenceWalletAsReported},
	{verdict.ClassWalletMismatch, verdict.KindRose}:        {"%s wallets rose although the run only paid from them", contract.SentenceWalletAsReported},
	{verdict.ClassNotReconciled, verdict.KindNotLookedUp}:  {"the run could not check %s created ids: they were not looked up, because ", ""},
	{verdict.ClassNotReconciled, verdict.KindLookupFailed}: {"the run could not check %s created ids: their look-up got no answer from payment status", ""},
	{verdict.ClassNotReconciled, verdict.KindStatusCode}:   {"payment status does not find %s created payments: it answers another status than 200", contract.SentenceFound},
	{verdict.ClassNotReconciled, verdict.KindNoAmount}: {"%s created payments cannot be reconciled: their answer or their payment status record has no amount",
		contract.SentenceFound},
	{verdict.ClassNotReconciled, verdict.KindOtherTransaction}: {"payment status answers %s created ids with another transaction than the one created",
		contract.SentenceRecordNamed},
	{verdict.ClassNotReconciled, verdict.KindWalletNotRead}: {"the run could not check the wallets of %s accounts: they could not be read after the run", ""},
}

// entryFinding is the finding of the entries es of key k.
func (fs *findingList) entryFinding(k entryKey, es []verdict.Entry) Finding {
	f := Finding{Class: k.class, Kind: k.kind, Count: len(es), Examples: exampleIDs(es)}
	if k.kind != verdict.KindNotLookedUp { // no request was made
		f.Exhibit = fs.entryExhibit(es[0])
	}
	text, ok := findingTexts[k]
	if !ok {
		text = findingText{headline: "%s " + k.class + " (" + k.kind + ")"}
	}
	f.Headline, f.Sentence = fmt.Sprintf(text.headline, readable.Thousands(len(es))), text.sentence
	switch k {
	case entryKey{verdict.ClassDuplicate, ""}:
		if r := fs.rep.Reconciliation; r != nil {
			f.Headline += fmt.Sprintf(", %s payments too many", readable.Thousands(r.Duplicates))
		}
		f.Exhibit = cmpExhibit(fs.errorExhibit(record.ErrCreatedAgain), f.Exhibit)
	case entryKey{verdict.ClassNotReconciled, verdict.KindNotLookedUp}:
		f.Headline += fs.whyNotLookedUp()
	case entryKey{verdict.ClassLost, ""}, entryKey{verdict.ClassResurrected, verdict.KindThrottled}, entryKey{verdict.ClassResurrected, verdict.KindRefused}:
		f.Headline += acrossFaults(es, fs.faults, fs.began)
	}
	if len(f.Examples) > 0 {
		f.Headline += " (e.g. " + strings.Join(f.Examples, ", ") + ")"
	}
	return f
}

// whyNotLookedUp says why the reconciliation did not look every created
// id up.
func (fs *findingList) whyNotLookedUp() string {
	if s := fs.rep.ReconcileStopped; s != "" {
		return s
	}
	return "the reconciliation ran out of time (--reconcile-timeout) before it got to them"
}

// consequence is what the entries es of key k, folded under a finding,
// say.
func (fs *findingList) consequence(k entryKey, es []verdict.Entry) Consequence {
	n := readable.Thousands(len(es))
	c := Consequence{Class: k.class, Kind: k.kind, Count: len(es), Examples: exampleIDs(es)}
	switch k.class {
	case verdict.ClassIdempotency:
		c.Text = fmt.Sprintf("so %s idempotency waves broke: more than one payment created", n)
	case verdict.ClassWalletMismatch:
		c.Text = fmt.Sprintf("so %s wallets fell by more than the first payment of each id took: by what the payments created again took, exactly", n)
		if k.kind == verdict.KindUnder {
			c.Text = fmt.Sprintf("so %s wallets fell by less than the created payments took: as if the lost payments had taken nothing", n)
		}
	case verdict.ClassNotReconciled:
		switch k.kind {
		case verdict.KindNotLookedUp:
			c.Text = fmt.Sprintf("so %s created ids were not looked up", n)
		case verdict.KindWalletNotRead:
			c.Text = fmt.Sprintf("so the wallets of %s accounts were not read after the run", n)
		case verdict.KindOtherTransaction:
			c.Text = fmt.Sprintf("so %s ids could not be reconciled: payment status names another of the transactions created for the id", n)
		case verdict.KindLookupFailed:
			c.Text = fmt.Sprintf("so %s created ids could not be looked up: the gateway answered their look-up", n)
		default:
			c.Text = fmt.Sprintf("so %s created ids could not be reconciled: payment status answers another status than 200", n)
		}
	case verdict.ClassUncertain:
		by := map[string]int{}
		for _, e := range es {
			by[e.Resolution]++
		}
		c.Text = fmt.Sprintf("so %s payments got no answer of the API: payment status found %s created, %s never created, %s unresolved",
			n, readable.Thousands(by[verdict.ResolvedCreated]), readable.Thousands(by[verdict.ResolvedNeverCreated]), readable.Thousands(by[verdict.Unresolved]))
	default:
		c.Text = fmt.Sprintf("so %s %s (%s)", n, k.class, k.kind)
	}
	if len(c.Examples) > 0 {
		c.Text += " (e.g. " + strings.Join(c.Examples, ", ") + ")"
	}
	return c
}

// entryExhibit is the request the reconciliation made about e (the id's
// look-up through payment status, or the account's profile read after
// the run) and what it answered.
func (fs *findingList) entryExhibit(e verdict.Entry) *record.Exhibit {
	ops, err := contract.Operations()
	if err != nil {
		return nil
	}
	base := strings.TrimRight(fs.rep.Target, "/")
	x := &record.Exhibit{Method: "GET", Account: e.Account, Status: e.Status, Detail: e.Detail}
	switch e.Class {
	case verdict.ClassWalletMismatch:
		x.URL = base + ops[contract.OpGetCustomerProfile].Path
		x.Detail = "the profile read after the run: " + e.Detail
	case verdict.ClassNotReconciled:
		if e.Kind == verdict.KindWalletNotRead {
			x.URL = base + ops[contract.OpGetCustomerProfile].Path
			break
		}
		fallthrough
	default:
		x.URL = base + ops[contract.OpGetPaymentStatus].Path + "?partner_trx_id=" + url.QueryEscape(e.ID)
		x.Detail = "payment status after the run: " + e.Detail
	}
	return x
}

// errorExhibit is the exhibit of the first answer of the error set with
// error text, or nil.
func (fs *findingList) errorExhibit(text string) *record.Exhibit {
	for _, e := range fs.rep.Errors {
		if e.Error == text {
			return e.Exhibit
		}
	}
	return nil
}

// cmpExhibit is the first of xs that is not nil.
func cmpExhibit(xs ...*record.Exhibit) *record.Exhibit {
	for _, x := range xs {
		if x != nil {
			return x
		}
	}
	return nil
}

// contractRule is the rule of a contract violation without its operation
// and status ("create: HTTP 409: the body is not one JSON object" is "the
// body is not one JSON object"): one finding, whichever operations broke
// it.
func contractRule(violation string) (rule, op string) {
	op, rest, ok := strings.Cut(violation, ": ")
	if !ok {
		return violation, ""
	}
	if after, ok := strings.CutPrefix(rest, "HTTP "); ok && len(after) > 5 && after[3:5] == ": " {
		rest = after[5:]
	}
	return rest, op
}

// contract adds a finding per contract rule broken, with the operations
// that broke it.
func (fs *findingList) contract() {
	rep := fs.rep
	byRule := map[string]map[string]int{} // rule → the violations (with their operation and status) → count
	for v, n := range rep.Contract.ByRule {
		rule, _ := contractRule(v)
		if byRule[rule] == nil {
			byRule[rule] = map[string]int{}
		}
		byRule[rule][v] += n
	}
	rules := slices.Sorted(maps.Keys(byRule))
	sort.SliceStable(rules, func(i, j int) bool { return total(byRule[rules[i]]) > total(byRule[rules[j]]) })
	for _, rule := range rules {
		vs := byRule[rule]
		f := Finding{Class: verdict.ClassContract, Kind: rule, Count: total(vs)}
		var where []string
		for _, v := range slices.Sorted(maps.Keys(vs)) {
			_, op := contractRule(v)
			where = append(where, fmt.Sprintf("%s %s", op, readable.Thousands(vs[v])))
			if f.Exhibit == nil {
				f.Exhibit = fs.errorExhibit("contract: " + v)
			}
		}
		f.Headline = fmt.Sprintf("%s: %s answers (%s)", rule, readable.Thousands(f.Count), strings.Join(where, ", "))
		if f.Exhibit != nil {
			f.Sentence = sentenceOf(f.Exhibit.Detail)
		}
		fs.list = append(fs.list, f)
	}
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sentenceOf is the sentence of the document a verdict's detail quotes:
// its last parenthesised part that names a section (§), or "".
func sentenceOf(detail string) string {
	for end := len(detail); end > 0; {
		closeAt := strings.LastIndexByte(detail[:end], ')')
		if closeAt < 0 {
			return ""
		}
		depth, i := 0, closeAt
		for ; i >= 0; i-- {
			switch detail[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if i < 0 {
			return ""
		}
		if inner := detail[i+1 : closeAt]; strings.Contains(inner, "§") {
			return inner
		}
		end = i
	}
	return ""
}

// operations folds into the findings the operations none of whose answers
// the document allows, when a finding explains every one of them (a
// contract rule every answer broke, a gateway that gave every answer);
// it returns the operations it folded. The others stay failures of their
// own (Report.finish).
func (fs *findingList) operations() {
	for _, name := range slices.Sorted(maps.Keys(fs.rep.Ops)) {
		op := fs.rep.Ops[name]
		if op.Requests == 0 || op.Allowed > 0 {
			continue
		}
		var cause *Finding
		switch {
		case op.Violations == op.Requests:
			for i := range fs.list {
				if f := &fs.list[i]; f.Class == verdict.ClassContract && strings.Contains(f.Headline, "("+name+" ") {
					cause = f
					break
				}
			}
		case op.Gateway == op.Requests:
			cause = fs.of(ClassGateway)
		}
		if cause != nil {
			cause.Consequences = append(cause.Consequences, Consequence{Class: "operation", Kind: name, Count: op.Requests,
				Text: fmt.Sprintf("so none of the %s %s requests got an answer the document allows", readable.Thousands(op.Requests), name)})
		}
	}
}

// foldedOp reports whether a finding explains that none of op's answers
// is one the document allows.
func (rep *Report) foldedOp(op string) bool {
	for _, f := range rep.Findings {
		for _, c := range f.Consequences {
			if c.Class == "operation" && c.Kind == op {
				return true
			}
		}
	}
	return false
}

// String writes the finding as the text report leads with it: the
// headline, the sentence, the request and its answer, the consequences.
func (f *Finding) String(indent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", f.Headline)
	if f.Sentence != "" {
		fmt.Fprintf(&b, "%sthe document: %s\n", indent, f.Sentence)
	}
	if x := f.Exhibit; x != nil {
		fmt.Fprintf(&b, "%sfor example:\n%s", indent, x.String(indent+"  "))
		if x.Detail != "" && x.Status != 0 {
			fmt.Fprintf(&b, "%s  = %s\n", indent, strings.TrimSuffix(x.Detail, " ("+f.Sentence+")"))
		}
	}
	for _, c := range f.Consequences {
		fmt.Fprintf(&b, "%s%s\n", indent, c.Text)
	}
	return b.String()
}
