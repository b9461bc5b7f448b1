package contract

import "errors"

// A defect fails its own rule, once, whoever judges it: the scenarios, the
// generated properties and the probe each check the document's rules
// through this package, and a check that finds a rule broken returns an
// error that wraps the rule's own error (ErrThrottledProcessed,
// ErrCreatedTwice, errWalletNotAsReported, …). Broken tells that rule
// from the error, whichever judge and check returned it, so that a
// report groups one defect under one cause.

// brokenRules are the rules a check of this package reports broken, each
// with the sentence of the document it rests on, the most telling first
// (an error that wraps two names the first).
var brokenRules = []struct {
	err      error
	sentence string
}{
	{ErrThrottledProcessed, SentenceThrottle},
	{ErrCreatedTwice, SentenceUniqueTrxID},
	{ErrUnusedIDRefused, SentenceUniqueTrxID},
	{ErrRefusedButCreated, SentenceCreatedFound},
	{ErrCreatedNotFound, SentenceCreatedFound},
	{ErrNotFoundBy, SentenceFound},
	{ErrRecordNotNamed, SentenceRecordNamed},
	{errRecordNotAsCreated, SentenceRecordNamed},
	{ErrCreatedAnswer, SentenceCreated},
	{ErrCreatedData, SentenceCreatedData},
	{errWalletNotAsReported, SentenceWalletAsReported},
	{errRefusalTook, SentenceRefusalTakesNothing},
	{errBalanceNotAsked, SentenceSplit},
	{errBeyondWallet, SentenceSplit},
	{errBalanceNotFirst, SentenceSplit},
	{errCoinsNotAsked, SentenceCoinsOnlyWhenAsked},
	{errWalletOverTotal, SentenceWalletWithinTotal},
	{errAmountNegative, SentenceAmount},
	{errAmountSum, SentenceAmount},
	{errAmountCoinRate, SentenceAmount},
	{ErrTotalPages, SentenceTotalPages},
}

// Broken is the rule err reports broken, and the document's sentence it
// rests on; ok is false when err wraps none of this package's rules.
func Broken(err error) (rule error, sentence string, ok bool) {
	if err == nil {
		return nil, "", false
	}
	for _, r := range brokenRules {
		if errors.Is(err, r.err) {
			return r.err, r.sentence, true
		}
	}
	return nil, "", false
}
