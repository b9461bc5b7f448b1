package steps

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
)

func (s *scenario) registerStatus(sc stepper) {
	sc.Step(`^`+actorRE+` looks up (?:the|the cashier's) payment by its (partner transaction id|transaction number)$`, s.lookUpPayment)
	sc.Step(`^`+actorRE+` looks up a payment without naming it$`, func(ctx context.Context, actor string) error {
		return s.lookUp(ctx, actor, api.GetPaymentStatusParams{})
	})
	sc.Step(`^`+actorRE+` looks up an unknown (partner transaction id|transaction number)$`, s.lookUpUnknown)
	sc.Step(`^`+actorRE+` looks up the transaction whose payment is not yet formed$`, s.lookUpUnformed)
	sc.Step(`^the other partner is not shown the cashier's transaction$`, s.notShown)
	sc.Step(`^by the suite's reading the other partner is answered as for an unknown transaction, with status (\d+) and the message "([^"]*)"$`, func(code int, msg string) error {
		return s.reading(contract.MustReading("cross-partner-status-404"), s.expectAnswerCiting(code, msg, secStatusOtherPartner))
	})
	sc.Step(`^the record matches the payment that was created$`, s.recordMatches)
	// The steps of a generated sequence (generative/model.go), whose model
	// grades a record's product and amounts as this suite does, by the
	// reading status-record-amounts.
	sc.Step(`^`+actorRE+` looks up the payment "([^"]*)" by its (partner transaction id|transaction number)$`, s.lookUpWritten)
	sc.Step(`^by the suite's reading the record shows the ids, product and amounts the payment was created with$`, s.recordMatches)
	sc.Step(`^the record's creation and update times have the form YYYY-MM-DD HH:MM:SS$`, s.recordTimes)
}

func (s *scenario) lookUp(ctx context.Context, actor string, params api.GetPaymentStatusParams) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	_, err = s.send(func() (*http.Response, error) { return s.api().GetPaymentStatus(ctx, &params, a.creds()) })
	return err
}

func (s *scenario) lookUpPayment(ctx context.Context, actor, key string) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	return s.lookUpCreated(ctx, actor, pm, key)
}

// lookUpCreated looks up the created payment pm by key.
func (s *scenario) lookUpCreated(ctx context.Context, actor string, pm *payment, key string) error {
	var params api.GetPaymentStatusParams
	if key == "partner transaction id" {
		params.PartnerTrxId = &pm.res.PartnerTrxID
	} else {
		params.TransactionNumber = &pm.res.TransactionNumber
	}
	return s.lookUp(ctx, actor, params)
}

func (s *scenario) lookUpUnknown(ctx context.Context, actor, key string) error {
	var params api.GetPaymentStatusParams
	if key == "partner transaction id" {
		id := s.nextTrxID() + "-never-created"
		params.PartnerTrxId = &id
	} else {
		n := fmt.Sprintf("INV/19700101/P0/%s%d", s.h.runID, s.h.next())
		params.TransactionNumber = &n
	}
	return s.lookUp(ctx, actor, params)
}

func (s *scenario) lookUpUnformed(ctx context.Context, actor string) error {
	u := s.h.profile.Fixtures.UnformedPayment
	var params api.GetPaymentStatusParams
	if u.PartnerTrxID != "" {
		params.PartnerTrxId = &u.PartnerTrxID
	} else {
		params.TransactionNumber = &u.TransactionNumber
	}
	return s.lookUp(ctx, actor, params)
}

// statusRecord decodes the record of the last status answer.
func (s *scenario) statusRecord() (map[string]any, error) {
	ex := s.last
	var body struct {
		Data map[string]any `json:"data"`
	}
	if ex == nil {
		return nil, fmt.Errorf("no payment was looked up before this check")
	}
	if ex.Status != http.StatusOK {
		return nil, s.failure(ex, secStatusLookup, "status 200 with the record", "got status %d", ex.Status)
	}
	if err := decode(ex.RespBody, &body); err != nil || body.Data == nil {
		return nil, s.failure(ex, secStatusRecord, "data, the payment status record", "no data (%v)", err)
	}
	return body.Data, nil
}

// lookUpWritten looks up, as actor, the payment a generated sequence
// created under the partner_trx_id written; it is the payment the checks
// that follow are about.
func (s *scenario) lookUpWritten(ctx context.Context, actor, written, key string) error {
	pm := s.generated[written]
	if pm == nil {
		return fmt.Errorf("no payment %q was created before this step", written)
	}
	s.payment = pm
	return s.lookUpCreated(ctx, actor, pm, key)
}

// recordMatches compares the record just looked up with the payment that
// was created; a product or amount that differs is graded by the reading
// status-record-amounts.
func (s *scenario) recordMatches() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	rec, err := s.statusRecord()
	if err != nil {
		return err
	}
	// Every field of section 2.6 and its type is checked on every answer by
	// the response validator (openapi.yaml's PaymentStatusRecord schema, see send).
	created := contract.Record{PartnerTrxID: pm.res.PartnerTrxID, TransactionNumber: pm.res.TransactionNumber, ProductID: pm.product.ID, Amount: pm.res.Amount}
	got := recordIn(rec)
	if err := contract.CheckRecordNamed(created, got); err != nil {
		return s.failure(s.last, secStatusLookup+" The record is that of the transaction named.",
			fmt.Sprintf("partner_trx_id %q and transaction_number %q, as in the answer that created the payment", created.PartnerTrxID, created.TransactionNumber), "%v", err)
	}
	if err := contract.CheckRecordAsCreated(created, got); err != nil {
		err := s.failure(s.last, secStatusLookup+" "+secStatusRecord, "the product and amounts of the answer that created the payment", "%v", err)
		return s.reading(contract.MustReading("status-record-amounts"), err)
	}
	return nil
}

// recordIn reads the fields of a status record the checks compare.
func recordIn(rec map[string]any) contract.Record {
	str := func(path string) string {
		v, _ := lookup(rec, path)
		s, _ := v.(string)
		return s
	}
	num := func(path string) int64 {
		v, _ := lookup(rec, path)
		n, _ := integer(v)
		return n
	}
	return contract.Record{PartnerTrxID: str("partner_trx_id"), TransactionNumber: str("transaction_number"), ProductID: num("product.id"),
		Amount: amount{Total: num("amount.total"), BalanceUsed: num("amount.balance_used"), CoinUsed: num("amount.coin_used"),
			CoinValueUsed: num("amount.coin_value_used"), GatewayPayment: num("amount.gateway_payment")}}
}

// notShown checks that another partner's lookup is not served: no 2xx
// answer and no record.
func (s *scenario) notShown() error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	var body struct {
		Data any `json:"data"`
	}
	_ = decode(ex.RespBody, &body)
	asked := url.Values{}
	if u, err := url.Parse(ex.URL); err == nil {
		asked = u.Query()
	}
	if err := contract.CheckNotShown(ex.Status, body.Data, asked.Get("partner_trx_id"), asked.Get("transaction_number")); err != nil {
		return s.failure(ex, secStatusOtherPartner, "no 2xx answer and no record",
			"%v: the message %q and data %v", err, env.Message, body.Data)
	}
	return nil
}

// documentedTime is the form YYYY-MM-DD HH:MM:SS of section 2.6; the
// document asks for the form, so calendar validity is not checked.
var documentedTime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$`)

func (s *scenario) recordTimes() error {
	rec, err := s.statusRecord()
	if err != nil {
		return err
	}
	for _, k := range []string{"created_at", "updated_at"} {
		v, _ := rec[k].(string)
		if !documentedTime.MatchString(v) {
			return s.failure(s.last, secStatusRecord, k+" in the form YYYY-MM-DD HH:MM:SS", "%s is %q", k, v)
		}
	}
	return nil
}
