package contract

import (
	"errors"
	"fmt"
)

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
	{errPageOverSize, sentencePageSize},
	{errNotSameCustomer, sentenceSameCustomer},
	{errShownToOtherPartner, sentenceNotShown},
	{errServerFault, SentenceServerFault},
	{errCoinValue, sentenceCoinValue},
	{errCoinValueRounded, sentenceCoinValue},
}

// AnswerMismatch is an answer that is not the row of section 7 a check
// wanted (CheckAnswer): what came, and the status and exact message the
// row gives. Whichever judge wanted that row, one defect that answers
// otherwise is one cause: the row and what it gives.
type AnswerMismatch struct {
	Status      int
	Message     string
	WantStatus  int
	WantMessage string
}

func (e *AnswerMismatch) Error() string {
	return fmt.Sprintf("got status %d and the message %q", e.Status, e.Message)
}

// Want is what the row gives, in words: "status 409 and the message …".
func (e *AnswerMismatch) Want() string {
	return fmt.Sprintf("status %d and the message %q", e.WantStatus, e.WantMessage)
}

// BrokenRule is a rule a check found broken: the rule's own error, which
// names it, and the document's sentence it rests on.
type BrokenRule struct {
	Rule     error
	Sentence string
}

// Broken is the rule err reports broken; ok is false when err wraps none
// of this package's rules.
func Broken(err error) (BrokenRule, bool) {
	if err == nil {
		return BrokenRule{}, false
	}
	for _, r := range brokenRules {
		if errors.Is(err, r.err) {
			return BrokenRule{Rule: r.err, Sentence: r.sentence}, true
		}
	}
	return BrokenRule{}, false
}

// The sentences of the rules whose checks name their section inline.
const (
	sentencePageSize  = "§4.2: pageSize — \"Records per page.\" §8: \"Maximum page size: 100.\""
	sentenceCoinValue = "§2.3: coin.available_value — the rupiah value of the coins (2 coins = 1 rupiah)."
)
