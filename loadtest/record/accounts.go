package record

import "time"

// Wallet is an account's balance (rupiah) and coins at one moment.
type Wallet struct {
	Balance int64     `json:"balance"`
	Coins   int64     `json:"coins"`
	At      time.Time `json:"at"`
}

// AccountSnapshot is an account's wallet read before and after a shard's run.
type AccountSnapshot struct {
	Account string  `json:"account"`
	Shard   int     `json:"shard"`
	Shared  bool    `json:"shared,omitempty"`
	Before  *Wallet `json:"before,omitempty"`
	After   *Wallet `json:"after,omitempty"`
	Error   string  `json:"error,omitempty"`
}
