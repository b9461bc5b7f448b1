package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

type profileEnvelope struct {
	Data struct {
		Balance struct {
			Available int64 `json:"available"`
		} `json:"balance"`
		Coin struct {
			Available int64 `json:"available"`
		} `json:"coin"`
	} `json:"data"`
}

// Wallet is an account's balance (rupiah) and coins at one moment.
type Wallet struct {
	Balance int64     `json:"balance"`
	Coins   int64     `json:"coins"`
	At      time.Time `json:"at"`
}

// wallet reads the profile of token.
func (cl *client) wallet(ctx context.Context, auth string) (Wallet, error) {
	r := cl.doTimed(ctx, cl.customerProfile(auth))
	if r.err != nil {
		return Wallet{}, fmt.Errorf("profile: %w", r.err)
	}
	if r.code != http.StatusOK {
		return Wallet{}, fmt.Errorf("profile: HTTP %d: %.200s", r.code, r.body)
	}
	var env profileEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		return Wallet{}, fmt.Errorf("profile: %w", err)
	}
	return Wallet{Balance: env.Data.Balance.Available, Coins: env.Data.Coin.Available, At: time.Now().UTC()}, nil
}
