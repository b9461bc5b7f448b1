package generative

// ThenDuplicateOrRule is the step the model ends a failing sequence with
// when a reused partner_trx_id with nothing payable got neither answer.
var ThenDuplicateOrRule = thenDuplicateOrRule
