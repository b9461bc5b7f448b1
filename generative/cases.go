package generative

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/internal/contract"
)

// operation is one operation of openapi.yaml, as the generator needs it.
type operation struct {
	ID, Method, Path string
	Op               *openapi3.Operation
	Body             *openapi3.Schema // nil without a JSON body
	SecretOnly       bool             // the operation needs only the secret key
	MainOnly         bool             // the operation declares 403 for other tokens
	Pays             bool             // the body names a product and a payment method
}

// operations lists the operations of the embedded openapi.yaml, sorted.
func operations(doc *openapi3.T) []operation {
	var out []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			o := operation{ID: op.OperationID, Method: method, Path: path, Op: op}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
					o.Body = mt.Schema.Value
				}
			}
			if op.Security != nil {
				o.SecretOnly = true
				for _, req := range *op.Security {
					if _, ok := req["bearerAuth"]; ok {
						o.SecretOnly = false
					}
				}
			}
			o.MainOnly = contract.MustOperation(op.OperationID).Documents(http.StatusForbidden)
			if o.Body != nil {
				_, hasProduct := o.Body.Properties["product_id"]
				_, hasMethod := o.Body.Properties["payment_method_id"]
				o.Pays = hasProduct && hasMethod
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// defects lists the one-place departures of the operation's request.
func (o operation) defects() []defect {
	if o.Body != nil {
		return bodyDefects(o.Body)
	}
	return queryDefects(o.Op.Parameters)
}

// declared reports whether openapi.yaml names status for the operation.
func (o operation) declared(status int) bool {
	return contract.MustOperation(o.ID).Documents(status)
}

// properties lists the schema properties (two per operation) and the
// stateful one.
func (w *world) properties(opts Options) []*property {
	doc := w.c.validatorDoc()
	hints := w.hints()
	valid, broken := &generator{hints: hints}, &generator{hints: hints, payable: true}
	var out []*property
	for _, op := range operations(doc) {
		for _, withDefect := range []bool{false, true} {
			name := "valid requests with varied values"
			if withDefect {
				name = "requests that break the schema in one place"
			}
			op, withDefect := op, withDefect
			variants := 0
			if withDefect {
				variants = len(op.defects())
			}
			out = append(out, &property{
				result:   PropertyResult{Operation: op.ID, Property: name},
				examples: opts.Examples,
				steps:    opts.Steps,
				variants: variants,
				body: func(t *rapid.T, rec *record, v int) {
					if withDefect {
						w.schemaCase(t, rec, broken, op, withDefect, v)
					} else {
						w.schemaCase(t, rec, valid, op, withDefect, v)
					}
				},
			})
		}
	}
	out = append(out, &property{
		result:   PropertyResult{Operation: "sequences", Property: "stateful sequences agree with the document's model"},
		examples: max(opts.Examples/2, 1),
		steps:    opts.Steps,
		body:     func(t *rapid.T, rec *record, _ int) { w.sequence(t, rec) },
	})
	return out
}

// schemaCase draws one request of op (with one defect when withDefect),
// sends it and checks the answer.
func (w *world) schemaCase(t *rapid.T, rec *record, g *generator, op operation, withDefect bool, variant int) {
	pairs := queryPairs(t, g, op)
	var body map[string]any
	if op.Body != nil {
		body = g.object(t, "body", op.Body)
	}
	r, payer := w.requestAs(t, op)

	// A payment may move money: read the payer's wallet (and, below, the
	// record of the transaction it names) before and after.
	var before wallet
	var beforeOK bool
	if op.Pays && !op.SecretOnly {
		before, _, beforeOK = w.walletOf(payer.Token)
		if beforeOK && !payer.spendable(before, w.maxPrice) {
			payer = w.cashier // the funded customer keeps what the scenarios need
			r.Token = payer.Token
			before, _, beforeOK = w.walletOf(payer.Token)
		}
		if withDefect {
			w.makePayable(t, body, payer)
		}
	}

	var d *defect
	if withDefect {
		ds := op.defects()
		d = &ds[variant%len(ds)]
	}
	r.encode(op, pairs, body, d)
	title := op.ID
	if d != nil {
		title += ", with " + d.Name
	}
	repro := w.reproduce(title, r)

	var trxBefore any
	trxID, _ := body["partner_trx_id"].(string)
	if op.Pays && !op.SecretOnly {
		trxBefore = w.record(trxID)
	}

	what := op.ID
	if d != nil {
		what += " with " + d.Name
	}
	var need wallet // what the funded customer must hold for a replay
	if op.Pays && payer == w.funded && beforeOK {
		price := w.priceOf(body["product_id"])
		need = w.fundsNeeded(before, wallet{Balance: price, Coins: 2 * price})
	}
	feature := func(c reproCheck) string { return w.feature(rec.command, what, r, c, need) }

	a := w.c.do(w.ctx, r)
	answered := answeredCheck
	if d != nil {
		answered = brokenCheck
	}
	w.common(t, rec, repro, feature(answered), op, a, d == nil)
	refused := a.Status/100 != 2
	if d != nil && !refused {
		switch d.Class {
		case stated:
			rec.feature = feature(refusedCheck)
			rec.fail(t, repro, "%s with %s was answered %d: the document refuses it (no 2xx)", op.ID, d.Name, a.Status)
		case read:
			rec.warn(t, readingTypesRefused, fmt.Sprintf("%s with %s was answered %d", op.ID, d.Name, a.Status), repro)
		}
	}
	if !refused && trxBefore != nil {
		env, _, _ := contract.Decode(a.Body)
		rec.fail(t, repro, "a payment with the used partner_trx_id %q was not refused: %v", trxID,
			contract.CheckAnswer(a.Status, env.Message, http.StatusConflict, contract.MsgDuplicate))
	}
	if op.Pays && !op.SecretOnly && beforeOK {
		w.checkPaymentEffects(t, rec, w.reproduceWallet(title, r, payer), feature(walletCheck), payer, before, trxID, trxBefore, a)
	}
}

// priceOf is the price of the catalog's product id (a JSON number of a
// drawn body), or 0.
func (w *world) priceOf(id any) int64 {
	n, _ := id.(int64)
	for _, p := range w.products {
		if p.ID == n {
			return p.Price
		}
	}
	return 0
}

// queryPairs draws op's query parameters: every required one, and each
// optional one or not.
func queryPairs(t *rapid.T, g *generator, op operation) [][2]string {
	var pairs [][2]string
	for _, pr := range op.Op.Parameters {
		p := pr.Value
		if p == nil || p.In != openapi3.ParameterInQuery {
			continue
		}
		if !p.Required && !rapid.Bool().Draw(t, p.Name+" present?") {
			continue
		}
		pairs = append(pairs, [2]string{p.Name, fmt.Sprint(g.value(t, p.Name, p.Schema.Value))})
	}
	return pairs
}

// requestAs starts a request of op with the credentials it needs, and
// returns the account that pays when op pays: the run's cashier, or the
// funded customer when drawn.
func (w *world) requestAs(t *rapid.T, op operation) (request, *account) {
	r := request{Method: op.Method, Path: op.Path, Secret: w.prof.SecretKey}
	payer := w.cashier
	switch {
	case op.SecretOnly:
	case op.MainOnly:
		r.Token = w.prof.MainToken
	default:
		if w.funded != nil && rapid.Bool().Draw(t, "the funded customer?") {
			payer = w.funded
		}
		r.Token = payer.Token
	}
	return r, payer
}

// encode puts the query and the JSON body in r, with the defect d (if any)
// applied to them.
func (r *request) encode(op operation, pairs [][2]string, body map[string]any, d *defect) {
	if d != nil && d.body != nil {
		d.body(body)
	}
	if d != nil && d.query != nil {
		pairs = d.query(pairs)
	}
	r.Query = encodeQuery(pairs)
	if op.Body == nil {
		return
	}
	r.Body, _ = json.Marshal(body)
	r.ContentType = "application/json"
	if d != nil && d.raw != nil {
		r.Body = d.raw(r.Body)
	}
	if d != nil && d.ctype != "" {
		r.ContentType = d.ctype
	}
}

// checkPaymentEffects checks what a payment did to the payer's wallet and to
// the record of its partner_trx_id: a refused one changed neither
// (contract.CheckRefusalTakesNothing); an accepted one took the balance and
// coins it reports (contract.CheckWalletAsReported: a mixed payment may take
// them later, the reading wallet-debited). feature is the request's
// reproduction by the payer's wallet.
func (w *world) checkPaymentEffects(t *rapid.T, rec *record, repro, feature string, payer *account, before wallet,
	trxID string, trxBefore any, a answer) {
	after, read, ok := w.walletOf(payer.Token)
	switch {
	case !ok && documentedFault(contract.OpGetCustomerProfile, read):
		return // the profile's system fault of section 7: nothing to compare
	case !ok:
		why := fmt.Sprintf("status %d", read.Status)
		if err := contract.CheckNoServerFault(contract.OpGetCustomerProfile, read.Status, str(decode(read.Body)["message"])); err != nil {
			why = err.Error()
		}
		rec.feature = feature
		rec.fail(t, repro, "the payer's profile could not be read after the payment: %s", why)
	}
	if a.Status/100 != 2 {
		if err := contract.CheckRefusalTakesNothing(contract.Wallet(before), contract.Wallet(after)); err != nil {
			rec.feature = feature
			rec.fail(t, repro, "a refused payment (%d): %v", a.Status, err)
		}
		if trxAfter := w.record(trxID); !reflect.DeepEqual(trxBefore, trxAfter) {
			rec.fail(t, repro, "a refused payment (%d) changed the record of partner_trx_id %q: %v became %v", a.Status, trxID, trxBefore, trxAfter)
		}
		return
	}
	// What the answer says it took; this check judges the wallet, not the answer.
	var pay contract.Payment
	if p, _, _ := contract.ReadCreated(a.Body, trxID); p != nil {
		pay = *p
	}
	amount := pay.Amount
	switch rd, err := contract.CheckWalletAsReported(contract.Exactly(contract.Wallet(before)).After(amount), contract.Wallet(after)); {
	case err == nil:
	case rd.ID != "":
		rec.warn(t, rd, err.Error(), repro)
	default:
		rec.feature = feature
		rec.fail(t, repro, "the payment reported balance_used %d and coin_used %d: %v", amount.BalanceUsed, amount.CoinUsed, err)
	}
	w.addTrx(trxRef{TrxID: trxID, Number: pay.TransactionNumber})
}

// makePayable makes a payment body (drawn from the API: an active
// product, a fresh partner_trx_id) one the server could accept from payer,
// so that the one defect applied after it is the request's only one: the
// destination number is of the product's operator, no promotion is named,
// and it pays from a funded payer's balance (method 0), or through a
// gateway method whose minimum the price reaches with balance and coins off.
func (w *world) makePayable(t *rapid.T, body map[string]any, payer *account) {
	id, _ := body["product_id"].(int64)
	var p *product
	for i := range w.products {
		if w.products[i].ID == id && w.products[i].Active {
			p = &w.products[i]
		}
	}
	if p == nil {
		t.Skip("the product drawn is not an active product of the catalog")
		return
	}
	body["msisdn"] = msisdnFor(t, p.Operator)
	delete(body, "promotion_id")
	fits := w.fitting(p.Price)
	if payer.Funded && (len(fits) == 0 || rapid.Bool().Draw(t, "pays from balance?")) {
		body["payment_method_id"] = int64(contract.InternalMethodID)
		body["use_balance"], body["use_coin"] = true, rapid.Bool().Draw(t, "use_coin")
		return
	}
	if len(fits) == 0 {
		t.Skip("no gateway method's minimum is reached by the product's price")
		return
	}
	body["payment_method_id"] = rapid.SampledFrom(fits).Draw(t, "gateway method").ID
	body["use_balance"], body["use_coin"] = false, false
}

// record is the status record of a partner_trx_id of the partner, or nil.
func (w *world) record(trxID string) any {
	if trxID == "" {
		return nil
	}
	a := w.get("/client/v2/payment/status", encodeQuery([][2]string{{"partner_trx_id", trxID}}), w.cashier.Token)
	if a.Status != http.StatusOK {
		return nil
	}
	d, _ := dig(decode(a.Body), "data").(map[string]any)
	delete(d, "updated_at") // the state may advance with time
	delete(d, "payment_status")
	delete(d, "transaction_status")
	delete(d, "serial_number")
	return d
}

// common are the checks on every answer: it came, it is no 5xx (but for
// the system fault section 7 gives op, answering a valid request: a request
// that departs from the schema probes how the server takes bad input, and a
// system fault then says the input broke it), its status is declared for
// the operation (or a failure the document leaves open), its body
// validates, and a refusal says so. feature is the request's reproduction
// by these checks.
func (w *world) common(t *rapid.T, rec *record, repro, feature string, op operation, a answer, valid bool) {
	fail := func(format string, args ...any) {
		rec.feature = feature
		rec.fail(t, repro, format, args...)
	}
	switch {
	case a.Err != nil:
		fail("%s: %v", op.ID, a.Err)
	case a.Status >= 500 && (!valid || !documentedFault(op.ID, a)):
		fail("%v to a generated request: a server fault (body %s)", contract.ServerFault(op.ID, a.Status), cut(a.Body))
	case !op.declared(a.Status) && a.Status/100 != 4:
		fail("%s was answered %d, a status openapi.yaml does not declare for it", op.ID, a.Status)
	case a.Invalid != nil:
		fail("%v (body %s)", a.Invalid, cut(a.Body))
	}
	if a.Status/100 == 4 {
		m := decode(a.Body)
		if m["status"] != false || str(m["message"]) == "" {
			rec.warn(t, ReadingRefusalShape, fmt.Sprintf("%s answered %d with %s", op.ID, a.Status, cut(a.Body)), repro)
		}
	}
}

// documentedFault reports whether a is the system fault section 7 gives
// operation op: a 500 with the row's message (contract.CheckNoServerFault).
func documentedFault(op string, a answer) bool {
	return a.Err == nil && a.Status >= 500 && contract.CheckNoServerFault(op, a.Status, str(decode(a.Body)["message"])) == nil
}

// cut is a body as a failure quotes it: without the newline that ends it
// and at most 300 bytes of it.
func cut(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
