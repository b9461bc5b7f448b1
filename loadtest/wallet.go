package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
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

// wallet reads the profile of token.
func (cl *client) wallet(ctx context.Context, auth string) (record.Wallet, error) {
	r := cl.doTimed(ctx, cl.customerProfile(auth))
	if r.err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", r.err)
	}
	if r.code != http.StatusOK {
		return record.Wallet{}, fmt.Errorf("profile: HTTP %d: %.200s", r.code, r.body)
	}
	var env profileEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", err)
	}
	return record.Wallet{Balance: env.Data.Balance.Available, Coins: env.Data.Coin.Available, At: time.Now().UTC()}, nil
}
