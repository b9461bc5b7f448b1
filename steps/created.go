package steps

import "sync"

// CreatedPayment is a payment the scenarios created: who made it (the
// partner's secret key and the account's token, and the actor the feature
// files name) and the keys payment status finds it by. A run gives them to
// the judges after the scenarios (JudgeEnv.Created), so that a judge of the
// whole run can look each one up: a rule no one scenario can judge, since
// no scenario knows which payment was a partner's first on the target.
type CreatedPayment struct {
	SecretKey, Token, Actor         string
	PartnerTrxID, TransactionNumber string
}

// createdLog keeps the payments the scenarios created, in the order they
// were answered.
type createdLog struct {
	mu  sync.Mutex
	all []CreatedPayment
}

func (l *createdLog) add(c CreatedPayment) {
	l.mu.Lock()
	l.all = append(l.all, c)
	l.mu.Unlock()
}

// list is a copy of what the log holds.
func (l *createdLog) list() []CreatedPayment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]CreatedPayment(nil), l.all...)
}
