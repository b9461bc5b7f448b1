package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/verdict"
)

// scenario is the state of one scenario: its client, the accounts it acts
// as, what it sent and what came back. Step definitions are its methods.
type scenario struct {
	h    *harness
	tags []string
	// skip is why the scenario was not run: the profile lacks what it
	// needs, or the run had stopped.
	skip string
	// unjudged is the cause of a scenario whose rule was not judged
	// (notJudged), unjudgedWhy its reason in full.
	unjudged    *verdict.Cause
	unjudgedWhy string
	// gathering is set while a step only gathers what the scenario needs
	// (gather): its answers are read for what it needs, not judged.
	gathering bool
	// entry is the scenario in the feature files; unselected marks a row of
	// an outline the selection left out (it is neither run nor reported).
	entry      *gherkin.Scenario
	unselected bool
	// aborted is set when a request of the scenario was cancelled because
	// the run stopped early on a dead target.
	aborted bool
	// interrupted is set when a request of the scenario was cancelled
	// because the run was interrupted; notRun when the scenario was not
	// started because the run had stopped.
	interrupted bool
	notRun      bool
	// unansweredAt is when a request of the scenario last got no answer,
	// and unansweredOn its endpoint; endpointStopped is set when a request
	// was not sent, or was cancelled, because the target stopped answering
	// its endpoint (endpoints.go).
	unansweredAt    time.Time
	unansweredOn    string
	endpointStopped string

	client *api.ClientWithResponses
	last   *exchange
	// sent are the scenario's requests in order, last the last of them: a
	// wallet failure's reproduction sends them again (walletReproduction).
	sent []*exchange

	accounts map[string]*account
	// provisioned is the last provisioning request the partner sent.
	provisioned *provisioning
	// payment is the first payment created; attempt is the last one tried.
	payment *payment
	attempt *payment
	// wallets hold balance and coins read before the payment, by actor.
	wallets map[string]wallet
	// reported are the wallets the payments of a generated sequence, or a
	// mixed payment, leave, by actor (reportedWallet): what their reported
	// amounts leave, up to the wallet parts of the mixed payments not yet
	// taken (contract.WalletRange); generated are a sequence's created
	// payments and trxIDs the fresh partner_trx_id of this run that stands
	// for each one it wrote, by the written id.
	reported  map[string]contract.WalletRange
	generated map[string]*payment
	trxIDs    map[string]string
	// reprovisioned is the account whose phone number was provisioned again;
	// synced is that account, when its wallet was read just before, until
	// its wallet is next read or it pays: a change of its wallet until then
	// is the provisioning's (walletAsReported).
	reprovisioned *account
	synced        *account
	// pages are the sync answers of the paging scenario.
	pages []syncPage
	// catalogs are the partners' catalogs read so far, by partner label.
	catalogs map[string]catalogRead
	// restsOn is the id of the reading the next expected answer rests on,
	// set by the step that sent a request whose answer only a reading fixes
	// (see expectAnswer); empty when the document fixes it.
	restsOn string
	// groupEndpoint is the endpoint a credential check called, and
	// authProblem what was wrong with its credentials.
	groupEndpoint string
	authProblem   string
	// warnings are the readings the server did not follow.
	warnings []contract.Warning
	// readings are the ids of the readings the scenario applied.
	readings []string

	unlock []func()
}

// account is a customer or main account the scenario acts as.
type account struct {
	actor   string
	partner partner
	token   string
	id      int64
	name    string
	phone   string
	email   string
}

// partner is a partner's credentials.
type partner struct {
	label     string
	secretKey string
	mainToken string
}

// wallet is the balance and coins of an account.
type wallet struct {
	balance int64
	coins   int64
}

// actorRE names the accounts a step can act as.
const actorRE = `(the cashier|the new cashier|the main account|the funded customer|the split-payment customer|the mixed-payment customer|the account with an unavailable wallet|the unconfigured partner's main account|the unconfigured partner's cashier|the other partner's main account|the other partner's cashier|cashier \d+)`

func (s *scenario) record(ex *exchange) { s.last, s.sent = ex, append(s.sent, ex) }

// api returns the scenario's client, created on first use.
func (s *scenario) api() *api.ClientWithResponses {
	if s.client == nil {
		c, err := api.NewClientWithResponses(s.h.profile.BaseURL, api.WithHTTPClient(&recorder{s: s}))
		if err != nil {
			panic(err) // the base URL was validated by Run
		}
		s.client = c
	}
	return s.client
}

func (s *scenario) mainPartner() partner {
	p := s.h.profile
	return partner{label: "the partner", secretKey: p.SecretKey, mainToken: p.MainToken}
}

func (s *scenario) otherPartner() partner {
	p := s.h.profile.SecondPartner
	return partner{label: "the other partner", secretKey: p.SecretKey, mainToken: p.MainToken}
}

func (s *scenario) unconfiguredPartner() partner {
	p := s.h.profile.InactivePricePlan
	return partner{label: "the partner whose price plan is not active", secretKey: p.SecretKey, mainToken: p.MainToken}
}

// as returns the account of an actor named in a step.
func (s *scenario) as(actor string) (*account, error) {
	if a, ok := s.accounts[actor]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("the scenario has no %q yet: a Given step must introduce it", actor)
}

func (s *scenario) addAccount(a *account) *account {
	if s.accounts == nil {
		s.accounts = map[string]*account{}
	}
	s.accounts[a.actor] = a
	return a
}

func (s *scenario) addMain(actor string, p partner) *account {
	return s.addAccount(&account{actor: actor, partner: p, token: p.mainToken})
}

// creds sets the secret key and the bearer token of an account.
func creds(secret, token string) api.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		if secret != "" {
			req.Header.Set("X-SECRET-KEY", secret)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	}
}

func (a *account) creds() api.RequestEditorFn { return creds(a.partner.secretKey, a.token) }

// send runs one call and turns a transport failure or a departure from
// openapi.yaml into a failure report.
func (s *scenario) send(call func() (*http.Response, error)) (*exchange, error) {
	resp, err := call()
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	ex := s.last
	if errors.Is(err, contract.ErrThrottledProcessed) {
		return ex, s.throttledProcessed(ex, err)
	}
	if ex != nil && ex.Gateway != nil {
		return ex, s.gatewayPage(ex) // not the API's answer (gateway.go)
	}
	if err != nil {
		if ex == nil || ex.Err == nil {
			return ex, fmt.Errorf("the request could not be built or sent: %w", err)
		}
		return ex, s.failure(ex, secEveryJSON, "an answer from the target", "%v", ex.Err)
	}
	if s.gathering {
		// A precondition reads only what it needs: the answer's contract
		// is judged by the scenarios whose rule it is.
		return ex, nil
	}
	if errors.Is(ex.Invalid, contract.ErrContentType) {
		return ex, s.failure(ex, contract.SentenceContentType, "Content-Type application/json", "%v", ex.Invalid)
	}
	if ex.Invalid != nil {
		return ex, s.failure(ex, verdict.CheckOpenAPI, "a response matching openapi.yaml", "%v", ex.Invalid)
	}
	return ex, nil
}

// notJudged ends the scenario without a verdict on its rule: what it needs
// to observe the rule is not there, or the target refused it with an answer
// the document allows, so the server is not at fault, and the rule is not
// judged either (the run is INCOMPLETE, not a pass). The reason is its
// cause: scenarios with one reason are one group.
func (s *scenario) notJudged(reason string) error {
	return s.notJudgedBecause(verdict.Cause{Headline: reason}, reason)
}

// notJudgedBecause is notJudged with the cause the writers group the
// scenario by, and the reason it gives in full.
func (s *scenario) notJudgedBecause(cause verdict.Cause, reason string) error {
	s.unjudged, s.unjudgedWhy = &cause, reason
	return fmt.Errorf("%w: not judged: %s", godog.ErrSkip, reason)
}

// gather runs a step that only gathers what the scenario needs (a
// product to pay for, an account, a wallet reading): its answers are read
// for what the scenario needs and no more, since a contract break in them
// is judged once, by the scenarios whose rule it is. A precondition that
// cannot be met blocks the scenario by that cause: it is not judged
// (neither failed nor passed; the run is INCOMPLETE), and the writers list
// it under the cause ("blocks 26 scenarios").
func (s *scenario) gather(fn func() error) error {
	if s.gathering {
		return fn()
	}
	s.gathering = true
	err := fn()
	s.gathering = false
	var se *stepError
	if !errors.As(err, &se) {
		return err
	}
	c := se.cause
	c.Blocked = true
	return s.notJudgedBecause(c, "blocked: a precondition could not be met: "+se.report)
}

// stepError is a failed check: it carries the full report and its cause,
// the key by which the writers group failures.
type stepError struct {
	report string
	cause  verdict.Cause
}

func (e *stepError) Error() string { return e.report }

// failure builds the report of a failed check: the sentence of the
// document checked, what was expected, what was found, the exchange. Its
// cause is the operation of the exchange, the sentence, and the first
// field of openapi.yaml an argument's *contract.AnswerError names, or else
// what was expected.
func (s *scenario) failure(ex *exchange, section, expected, format string, args ...any) error {
	var b strings.Builder
	fmt.Fprintf(&b, "found: %s\n", fmt.Sprintf(format, args...))
	fmt.Fprintf(&b, "  checks:   %s\n", section)
	fmt.Fprintf(&b, "  expected: %s\n", expected)
	b.WriteString(ex.String())
	return &stepError{report: b.String(), cause: failureCause(ex, section, expected, format, args)}
}

// failureCause is the cause of a failure of failure's arguments.
func failureCause(ex *exchange, section, expected, format string, args []any) verdict.Cause {
	c := verdict.Cause{Check: section, Expected: expected}
	if ex != nil {
		c.Operation = ex.Operation
	}
	for _, a := range args {
		var ae *contract.AnswerError
		if err, ok := a.(error); ok && errors.As(err, &ae) && len(ae.Violations) > 0 {
			v := ae.Violations[0]
			c.Field, c.Rule, c.Expected = v.Field(), string(v.Rule), ""
			c.Headline = v.Headline(ae.Operation)
			return c
		}
	}
	// What the answer broke (a rule of internal/contract, a row of section
	// 7) names the cause, as the other judges name it; the headline stays
	// this failure's.
	for _, a := range args {
		if err, ok := a.(error); ok {
			if named, ok := verdict.ErrorCause(c.Operation, err); ok {
				c.Check, c.Expected = named.Check, named.Expected
				break
			}
		}
	}
	// What was found first, then what the document asks.
	found, _, _ := strings.Cut(strings.TrimPrefix(fmt.Sprintf(format, args...), "got "), "\n")
	c.Headline = found + "; the document asks for " + expected
	if c.Operation != "" {
		c.Headline = c.Operation + ": " + c.Headline
	}
	return c
}

// decode reads one JSON value from a body, keeping numbers exact; anything
// after the value is an error (internal/contract, shared with the load tester).
var decode = contract.Unmarshal

// envelope checks what every answer carries (section 1): one JSON object
// with a boolean status and a string message (internal/contract).
func (s *scenario) envelope(ex *exchange) (contract.Envelope, error) {
	env, _, err := contract.Decode(ex.RespBody)
	if err != nil {
		return env, s.envelopeFailure(ex, err)
	}
	return env, nil
}

// envelopeFailure is the failure of an answer whose envelope
// contract.Decode could not read (err).
func (s *scenario) envelopeFailure(ex *exchange, err error) error {
	if errors.Is(err, contract.ErrNotObject) {
		return s.failure(ex, secEveryJSON, "a JSON body", "the body is not a JSON object: %v", err)
	}
	return s.failure(ex, secEveryJSON, "status (boolean) and message (string)", "status or message is missing: %v", err)
}

// lastEnvelope returns the last exchange and its decoded status and message.
func (s *scenario) lastEnvelope() (*exchange, contract.Envelope, error) {
	if s.last == nil {
		return nil, contract.Envelope{}, errors.New("no request was sent before this check")
	}
	env, err := s.envelope(s.last)
	return s.last, env, err
}

// expectAnswer checks the status code and the exact message of the last
// answer against the section 7 row of the message.
func (s *scenario) expectAnswer(code int, msg string) error {
	err := s.expectAnswerCiting(code, msg, contract.MessageRow(msg))
	if id := s.restsOn; id != "" {
		s.restsOn = ""
		return s.reading(contract.MustReading(id), err)
	}
	return err
}

// expectAnswerCiting checks the status code and the exact message of the
// last answer; a failure cites section.
func (s *scenario) expectAnswerCiting(code int, msg, section string) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	want := fmt.Sprintf("status %d and the message %q", code, msg)
	if err := contract.CheckAnswer(ex.Status, env.Message, code, msg); err != nil {
		if code/100 == 2 {
			if skip := s.systemFault(ex, env); skip != nil {
				return skip
			}
		}
		return s.failure(ex, section, want, "%v", err)
	}
	if successMessages[msg] && code >= 200 && code < 300 && !env.Status {
		return s.failure(ex, "§4: Every success body has status true and message OK unless stated.", "status true", "got status false in a success body")
	}
	s.h.coverage.asserted(ex, msg)
	return nil
}

// successMessages are the messages of a success body (§4: "Every success
// body has status true and message OK unless stated"). Other 200 answers,
// such as "Subkategori tidak ditemukan.", may carry either status.
var successMessages = map[string]bool{contract.MsgOK: true, contract.MsgSynced: true, contract.MsgCreated: true}

func (s *scenario) registerCommon(sc stepper) {
	sc.Step(`^the (?:answer|request|payment) (?:comes back|is refused) with status (\d+) and the message "([^"]*)"$`, s.expectAnswer)
	sc.Step(`^the (?:answer|request|payment) (?:comes back|is refused) with status (\d+) and the message "([^"]*)", or with status (\d+) and the message "([^"]*)"$`, s.expectEitherAnswer)
	sc.Step(`^the target answers without a server fault$`, s.noServerFault)
	sc.Step(`^the target answers the request that breaks the schema without a server fault$`, s.noServerFaultAtAll)
}

// expectEitherAnswer checks that the last answer has either status and
// its exact message (contract.CheckAnswerEither): a request that meets two
// rows of section 7, which the document does not order.
func (s *scenario) expectEitherAnswer(code1 int, msg1 string, code2 int, msg2 string) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if err := contract.CheckAnswerEither(ex.Status, env.Message, code1, msg1, code2, msg2); err != nil {
		return s.failure(ex, contract.MessageRow(msg1)+"; "+contract.MessageRow(msg2),
			fmt.Sprintf("status %d and the message %q, or status %d and the message %q", code1, msg1, code2, msg2), "%v", err)
	}
	s.h.coverage.asserted(ex, env.Message)
	return nil
}

// noServerFault checks that the last answer is no server fault the
// document does not give (contract.CheckNoServerFault: a 500 of section 7,
// with its message, is an answer; a transport failure or an answer
// openapi.yaml does not allow fails the request's own step).
func (s *scenario) noServerFault() error {
	ex := s.last
	if ex == nil {
		return errors.New("no request was sent before this check")
	}
	if ex.Status < 500 {
		return nil
	}
	env, _ := s.envelope(ex)
	if err := contract.CheckNoServerFault(ex.Operation, ex.Status, env.Message); err != nil {
		return s.failure(ex, contract.SentenceServerFault, "an answer, or the system fault section 7 gives the operation", "%v", err)
	}
	return nil
}

// noServerFaultAtAll checks that the last answer, to a request that breaks
// the schema in one place (a generated reproduction), is no 5xx at all: a
// system fault there says the input broke the server, which the document
// answers with a refusal.
func (s *scenario) noServerFaultAtAll() error {
	ex := s.last
	if ex == nil {
		return errors.New("no request was sent before this check")
	}
	if ex.Status >= 500 {
		return s.failure(ex, "§7: the document answers bad input with a refusal (4xx); a 5xx says the input broke the server",
			"an answer, not a server fault", "the answer is %d (a server fault)", ex.Status)
	}
	return nil
}

// systemFault is the skip of a scenario whose request, one the document
// accepts, was answered with the system fault section 7 gives its operation
// (contract.CheckNoServerFault): an answer the document allows, which
// leaves the scenario nothing to observe. It is nil for any other answer.
func (s *scenario) systemFault(ex *exchange, env contract.Envelope) error {
	if ex.Status < 500 || contract.CheckNoServerFault(ex.Operation, ex.Status, env.Message) != nil {
		return nil
	}
	return s.notJudgedBecause(verdict.Cause{Operation: ex.Operation, Check: "system fault", Expected: fmt.Sprintf("%d %q", ex.Status, env.Message),
		Headline: fmt.Sprintf("the target answered %s with the system fault of section 7 (%d %q), an answer the document allows", ex.Operation, ex.Status, env.Message)},
		fmt.Sprintf("the target answered %s with the system fault of section 7 (%d %q): an answer the document allows, which leaves the scenario nothing to observe",
			ex.Operation, ex.Status, env.Message))
}
